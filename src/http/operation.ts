import type Router from '@koa/router';
import type { RouterMiddleware } from '@koa/router';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';

/**
 * One API operation, declared once in its module's `*.routes.ts`: the app registers it (src/api/routes.ts
 * lists them, in registration order) and the API document collects it, so its path is written in one
 * place and the document cannot drift from the routes. `Deps` is what its handler is built from: the
 * modules' `AppDeps` (src/modules/app-deps.ts), which this toolkit does not know.
 */
export interface Operation<Deps> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa style, relative to the `/api` (and `/api/v1`) prefix: `/refunds/:id`. The document reads `{id}`. */
  path: string;
  operationId: string;
  /** The OpenAPI operation, without the path and operationId above. */
  doc: Omit<ZodOpenApiOperationObject, 'operationId'>;
  /**
   * Built once per router the operation is registered on; per-route middleware (conditionalGet, a rate
   * limit) comes first in the list. A function of the deps, so the document is built without them.
   */
  handler: (deps: Deps) => RouterMiddleware | RouterMiddleware[];
}

/** Registers operations on a router in the order given: the order decides which of two paths matches. */
export function registerOperations<Deps>(router: Router, operations: readonly Operation<Deps>[], deps: Deps): void {
  for (const operation of operations) {
    const middleware = [operation.handler(deps)].flat();
    router[operation.method](operation.path, ...middleware);
  }
}

/** `/refunds/:id` as OpenAPI writes it: `/refunds/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The document's paths object of some operations; each path's methods gathered under it. */
export function operationPaths<Deps>(operations: readonly Operation<Deps>[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const { method, path, operationId, doc } of operations) {
    const key = openApiPath(path);
    if (paths[key]?.[method]) throw new Error(`two operations declare ${method.toUpperCase()} ${path}`);
    paths[key] = { ...paths[key], [method]: { operationId, ...doc } };
  }
  return paths;
}
