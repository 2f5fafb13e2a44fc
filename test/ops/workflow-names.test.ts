import { readFileSync } from 'node:fs';
import * as workflowIds from '../../contracts/workflow-ids.js';
import { WORKFLOW_NAMES } from '../../contracts/workflows.js';
import * as workflows from '../../workflows/index.js';

// The outbox stores a workflow by name from contracts/workflows.ts, which must name exactly the
// workflows the worker registers (every export of workflows/index.ts, under its own name).
describe('the table of workflow names', () => {
  it('names every workflow the worker registers, and nothing else', () => {
    expect([...WORKFLOW_NAMES].sort()).toEqual(Object.keys(workflows).sort());
    for (const [name, workflow] of Object.entries(workflows)) expect(workflow.name).toBe(name);
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
