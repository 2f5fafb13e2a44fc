import { z } from 'zod';

/** The optional `If-None-Match` header of the single-resource reads (they answer 304 when it matches). */
export const ifNoneMatchHeader = z.object({
  'If-None-Match': z
    .string()
    .optional()
    .meta({
      param: { id: 'IfNoneMatch' },
      description:
        'One or more ETags from earlier answers (`"…"`, `W/"…"`, comma-separated) or `*`. When one matches the current ETag (weak comparison, RFC 9110) the answer is 304 with no body.',
      example: '"3q2-7wEjR0aY1b8kWb9v0A"',
    }),
});

/**
 * Path ids. Every id the service makes has this shape, but an id of another shape is simply not found
 * (404), so the document states the shape and the service answers the rest as unknown.
 */
export const idPath = (prefix: string, description: string) =>
  z.object({
    id: z
      .string()
      .regex(new RegExp(`^${prefix}_[0-9a-f]{32}$`))
      .meta({ description, example: `${prefix}_0190f4c2a7e07b3c9d1e2f3a4b5c6d7e` }),
  });

export const sessionIdPath = z.object({
  id: z.uuid().meta({ description: 'The checkout session id (a UUID).', example: '0190f4c2-a7e0-7b3c-9d1e-2f3a4b5c6d7e' }),
});
