import type Router from '@koa/router';
import type { RouterMiddleware } from '@koa/router';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { parse } from '../domain/validation.js';

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

/** The body and query schemas an operation declares (its handler parses them); undefined where it declares none. */
export const declaredBody = (doc: Operation<unknown>['doc']): z.ZodType | undefined =>
  (doc.requestBody?.content?.['application/json']?.schema as z.ZodType | undefined) ?? undefined;
export const declaredQuery = (doc: Operation<unknown>['doc']): z.ZodType | undefined =>
  (doc.requestParams?.query as z.ZodType | undefined) ?? undefined;

const NO_FIELDS = z.strictObject({});

/**
 * A body or query string the operation declares none of defines no field, so any field in it is unknown
 * and refused by name, as the declared ones refuse theirs (src/domain/unknown-fields.ts): a cancel sent
 * with `{"reason": …}` must not pass as if the reason were kept. `{}` and no body at all pass.
 */
function refuseUndeclared(doc: Operation<unknown>['doc']): RouterMiddleware | undefined {
  const body = declaredBody(doc);
  const query = declaredQuery(doc);
  if (body && query) return undefined;
  return (ctx, next) => {
    if (!query) parse(NO_FIELDS, ctx.query);
    if (!body) parse(NO_FIELDS, ctx.request.body ?? {});
    return next();
  };
}

/** Registers operations on a router in the order given: the order decides which of two paths matches. */
export function registerOperations<Deps>(router: Router, operations: readonly Operation<Deps>[], deps: Deps): void {
  for (const operation of operations) {
    const middleware = [refuseUndeclared(operation.doc), operation.handler(deps)].flat().filter((step) => step !== undefined);
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
