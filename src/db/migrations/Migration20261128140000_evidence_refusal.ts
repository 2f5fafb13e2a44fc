import { Migration } from '@mikro-orm/migrations';

/**
 * `disputes.evidence_refusal`: why the acquirer refused the evidence last sent to it (Stripe answering
 * `disputes.update` with an error). The dispute then needs a response again, and the merchant reads why on
 * the dispute (`evidenceRefusal`), instead of a dispute that read `under_review` while Stripe had nothing.
 */
export class Migration20261128140000_evidence_refusal extends Migration {
  override name = 'Migration20261128140000_evidence_refusal';

  override up(): void {
    this.addSql(`alter table disputes add column evidence_refusal text null;`);
  }

  override down(): void {
    this.addSql(`alter table disputes drop column evidence_refusal;`);
  }
}
