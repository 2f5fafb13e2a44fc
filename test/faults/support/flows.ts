/** The money flows a fault test drives through an API process, in the spec's own requests. */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { HttpClient } from '../../support/http.js';
import { payBody, sessionBody } from '../../support/payments.js';

export async function createSession(http: HttpClient, key: string, headers: Record<string, string> = {}): Promise<{ id: string }> {
  const res = await http.post('/api/checkout/sessions', sessionBody(), { key, headers });
  if (res.status !== 201) throw new Error(`session create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/**
 * A session paid on the hosted page's endpoint: total 4658, of which 450 is held in a reserve. A pay that
 * answers `processing` (its payment outlasted the call's 10 s wait on a loaded machine) is waited for, a
 * read of the session a second, as a merchant would.
 */
export async function paidSession(http: HttpClient, key: string): Promise<{ id: string }> {
  const session = await createSession(http, key);
  const res = await http.post(`/api/checkout/${session.id}/pay`, payBody());
  const told = res.status === 200 ? res.body.data.status : null;
  const deadline = Date.now() + 60_000;
  for (let status = told; status !== 'completed'; ) {
    if (status !== 'processing' && status !== 'pending') throw new Error(`payment failed: ${res.status} ${res.text} (session ${status})`);
    if (Date.now() > deadline) throw new Error(`session ${session.id} still ${status} 60 s after its pay`);
    await new Promise((r) => setTimeout(r, 1_000));
    status = (await http.get(`/api/checkout/sessions/${session.id}`, { key })).body.data.status;
  }
  return session;
}

export const walletWithdrawal = (dollars: number) => ({
  amount: dollars,
  destinationType: 'wallet',
  destinationDetails: { walletEmail: 'payouts@merchant.example' },
});

/**
 * Polls until `read` gives something truthy; throws with `what` when the time is up. A read that throws
 * (a dependency still coming back after a fault) is tried again, but one that is still throwing at the
 * deadline fails with its own error, not with a timeout that hides it.
 */
export async function until<T>(what: string, read: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown = null;
    const value = await read().catch((err: unknown) => {
      failure = err;
      return undefined;
    });
    if (value) return value;
    if (Date.now() > deadline) {
      if (failure) throw new Error(`timed out waiting for ${what}; the last read failed: ${(failure as Error).message ?? failure}`, { cause: failure });
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A workflow's result. Its start is dispatched after the commit that made it (the outbox), so a test
 * asking right after the request may be early: "not found" is retried for a while.
 */
export async function workflowResult(temporal: Client, workflowId: string, timeoutMs = 60_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await temporal.workflow.getHandle(workflowId).result();
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
