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
