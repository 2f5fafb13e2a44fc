/**
 * What the request bodies of this process hold at once, counted as their bytes arrive: the whole process
 * against BODY_BYTES_IN_FLIGHT, and each client address against its share (BODY_BYTES_PER_CLIENT) and a
 * number of bodies it may have unfinished at once (BODY_UNFINISHED_PER_CLIENT).
 *
 * Nothing is reserved up front. A declared Content-Length is only an upper bound, and a chunked body has
 * none, so reserving what a request might send let sixteen idle chunked requests (or sixteen trickles of
 * one byte every few seconds, with no key at all) refuse every POST of the process. Counting arrivals
 * keeps the budget's purpose, a flood of large bodies cannot push the capped heap over, while ordinary
 * traffic meets a 503 only when the process really holds that many bytes; the per-address share keeps
 * one address from taking the whole budget from everyone else.
 */
export interface IntakeLimits {
  /** Bytes all bodies of the process together may hold. */
  processBytes: number;
  /** Bytes the bodies of one client address may hold. */
  clientBytes: number;
  /** Bodies one client address may have open and not yet fully received. */
  clientBodies: number;
}

/** Why a body was refused: the process is full, or this address has used its share. */
export type IntakeRefusal = 'process' | 'client';

export interface BodyTicket {
  /** Counts `bytes` more of this body; a refusal counts nothing, and the caller stops reading. */
  take(bytes: number): IntakeRefusal | null;
  /** The body is fully received: it no longer counts as unfinished (its bytes stay held until release). */
  finish(): void;
  /** Gives back everything this body holds. Safe to call more than once. */
  release(): void;
}

interface ClientShare {
  bytes: number;
  bodies: number;
}

export function intakeBudget(limits: IntakeLimits) {
  let held = 0;
  let peak = 0;
  const clients = new Map<string, ClientShare>();

  return {
    /** A ticket for one body of `client`, or a refusal when the address already has its unfinished bodies. */
    open(client: string): BodyTicket | IntakeRefusal {
      const share = clients.get(client) ?? { bytes: 0, bodies: 0 };
      if (share.bodies >= limits.clientBodies) return 'client';
      share.bodies++;
      clients.set(client, share);
      let mine = 0;
      let unfinished = true;
      let released = false;
      const finish = () => {
        if (!unfinished) return;
        unfinished = false;
        share.bodies--;
      };
      return {
        take(bytes) {
          if (released) return 'process';
          if (share.bytes + bytes > limits.clientBytes) return 'client';
          if (held + bytes > limits.processBytes) return 'process';
          share.bytes += bytes;
          held += bytes;
          mine += bytes;
          if (held > peak) peak = held;
          return null;
        },
        finish,
        release() {
          if (released) return;
          released = true;
          finish();
          share.bytes -= mine;
          held -= mine;
          mine = 0;
          // The map keeps only addresses with something open, so it cannot grow with every address seen.
          if (share.bodies === 0 && share.bytes === 0) clients.delete(client);
        },
      };
    },
    /** The bytes all bodies hold now, and the most they have held at once. */
    held: () => held,
    peak: () => peak,
    /** The bytes and unfinished bodies of one address now. */
    client: (client: string): ClientShare => ({ ...(clients.get(client) ?? { bytes: 0, bodies: 0 }) }),
    /** Addresses with something open. */
    clients: () => clients.size,
  };
}
