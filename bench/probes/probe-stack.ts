import { createBusiness, DEMO_BUSINESS } from '../../src/modules/businesses/index.js';
import { buildDist, serviceEnv, startInfrastructure } from '../stack.js';

/**
 * What every probe starts from: the production build, embedded PostgreSQL and a Temporal dev server,
 * the services' environment as the bench gives it, and businesses whose rate limits never shape a figure.
 */
export async function startProbe() {
  const build = buildDist();
  const infra = await startInfrastructure();
  const appEnv: Record<string, string> = { ...serviceEnv(infra), TEMPORAL_ADDRESS: infra.temporalAddress };

  const business = async (name: string) => {
    const { business, keys } = await createBusiness(infra.orm.em.fork(), {
      ...DEMO_BUSINESS,
      name,
      rateLimitTier: 'enterprise',
      rateLimitPerMinute: 10_000_000,
      rateLimitBurst: 10_000_000,
    });
    return { id: business.id, key: keys.find((k) => k.mode === 'test')!.secret };
  };
  return { build, infra, appEnv, business };
}
