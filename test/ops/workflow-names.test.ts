import { readFileSync } from 'node:fs';
import * as workflowIds from '../../contracts/workflow-ids.js';
import { WORKFLOW_NAMES } from '../../contracts/workflows.js';
import * as workflows from '../../workflows/index.js';
import { checkoutWorkflowContract, sessionExpiryWorkflowContract } from '../../contracts/checkout.js';
import { disputeWorkflowContract } from '../../contracts/disputes.js';
import { refundWorkflowContract } from '../../contracts/refunds.js';
import { reserveReleaseWorkflowContract } from '../../contracts/reserves.js';
import { retentionWorkflowContract } from '../../contracts/retention.js';
import { webhookDeliveryWorkflowContract } from '../../contracts/webhooks.js';
import { withdrawalWorkflowContract } from '../../contracts/withdrawals.js';
import type { WorkflowContract, WorkflowFunction } from '../../contracts/workflows.js';

// The outbox stores a workflow by name from contracts/workflows.ts, which must name exactly the
// workflows the worker registers (every export of workflows/index.ts, under its own name).
describe('the table of workflow names', () => {
  it('names every workflow the worker registers, and nothing else', () => {
    expect([...WORKFLOW_NAMES].sort()).toEqual(Object.keys(workflows).sort());
    for (const [name, workflow] of Object.entries(workflows)) expect(workflow.name).toBe(name);
  });
});

/**
 * A contract with the function the worker registers under its name. The function is checked against the
 * contract's shape where the pair is written (`NoInfer`: the contract alone decides the shape), so tsc, run
 * first by `npm test`, fails when a workflow's parameters drift from what its starters send.
 */
const contractOf = <F extends WorkflowFunction>(contract: WorkflowContract<F>, workflow: NoInfer<F>) => ({ contract, workflow });

describe('the workflows\' contracts (contracts/), which the service starts them by', () => {
  const pairs = [
    contractOf(checkoutWorkflowContract, workflows.checkoutWorkflow),
    contractOf(sessionExpiryWorkflowContract, workflows.sessionExpiryWorkflow),
    contractOf(disputeWorkflowContract, workflows.disputeWorkflow),
    contractOf(refundWorkflowContract, workflows.refundWorkflow),
    contractOf(reserveReleaseWorkflowContract, workflows.reserveReleaseWorkflow),
    contractOf(retentionWorkflowContract, workflows.retentionWorkflow),
    contractOf(webhookDeliveryWorkflowContract, workflows.webhookDeliveryWorkflow),
    contractOf(withdrawalWorkflowContract, workflows.withdrawalWorkflow),
  ];

  it.each(pairs.map((p) => [p.contract.name, p]))('%s: the contract names the function the worker registers', (_name, { contract, workflow }) => {
    expect(contract.name).toBe(workflow.name);
  });

  it('covers every workflow the service starts (all but the idempotency purge, kept registered only for runs its removed schedule started)', () => {
    expect(pairs.map((p) => p.contract.name).sort()).toEqual(WORKFLOW_NAMES.filter((n) => n !== 'purgeIdempotencyKeysWorkflow').sort());
  });
});

describe('workflow ids (contracts/workflow-ids.ts)', () => {
  const runbook = readFileSync('docs/runbook.md', 'utf8');
  // Each id as the runbook writes it: the record's id shown by its prefix and an ellipsis.
  const shown: Record<keyof typeof workflowIds, string> = {
    checkoutWorkflowId: workflowIds.checkoutWorkflowId('<session uuid>'),
    refundWorkflowId: workflowIds.refundWorkflowId('ref_…'),
    withdrawalWorkflowId: workflowIds.withdrawalWorkflowId('wd_…'),
    reserveReleaseWorkflowId: workflowIds.reserveReleaseWorkflowId('res_…'),
    reserveReleaseAgainWorkflowId: workflowIds.reserveReleaseAgainWorkflowId('res_…', 'ref_…'),
    webhookDeliveryWorkflowId: workflowIds.webhookDeliveryWorkflowId('whd_…'),
    disputeWorkflowId: workflowIds.disputeWorkflowId('dsp_…'),
    sessionExpiryWorkflowId: workflowIds.sessionExpiryWorkflowId('<task queue>'),
    retentionScheduleId: workflowIds.retentionScheduleId('<task queue>'),
    retentionWorkflowId: workflowIds.retentionWorkflowId('<task queue>'),
  };

  it.each(Object.entries(shown))('the runbook names %s as the code builds it: %s', (_name, id) => {
    expect(runbook).toContain(`\`${id}\``);
  });
});
