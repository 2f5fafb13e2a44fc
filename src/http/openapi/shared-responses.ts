/** The few parts of an OpenAPI document this step reads. */
interface Response {
  content?: Record<string, { examples?: Record<string, unknown> }>;
}
type Responses = Record<string, Response | { $ref: string }>;
interface Document {
  paths?: Record<string, object>;
  components?: { responses?: Record<string, unknown> };
}

const STATUS_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '408': 'RequestTimeout',
  '409': 'Conflict',
  '422': 'UnprocessableContent',
  '429': 'TooManyRequests',
  '500': 'InternalError',
  '503': 'ServiceUnavailable',
};

const pascal = (name: string) => name.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());

/**
 * Most operations share their 401, 403, 429, 500 and 503 answers word for word; each such answer is
 * written once under `components.responses` and referenced, which keeps the document small enough to read.
 * Names come from the catalogue entries an answer shows (`InvalidApiKey`), or its status when it shows several.
 */
export function shareRepeatedResponses<D extends Document>(doc: D): D {
  const uses = new Map<string, { status: string; response: Response; count: number }>();
  const each = (visit: (responses: Responses, status: string) => void) => {
    for (const item of Object.values(doc.paths ?? {})) {
      for (const op of Object.values(item) as { responses?: Responses }[]) {
        if (!op || typeof op !== 'object' || !op.responses) continue;
        for (const status of Object.keys(op.responses)) if (/^[45]/.test(status)) visit(op.responses, status);
      }
    }
  };
  each((responses, status) => {
    const text = JSON.stringify(responses[status]);
    const entry = uses.get(text) ?? { status, response: responses[status] as Response, count: 0 };
    entry.count += 1;
    uses.set(text, entry);
  });

  const components = (doc.components ??= {});
  const shared = (components.responses ??= {});
  const names = new Map<string, string>();
  const counts = new Map<string, number>();
  for (const [text, { status, response, count }] of uses) {
    if (count < 2) continue;
    const codes = Object.keys(response.content?.['application/json']?.examples ?? {});
    const base = codes.length === 1 ? pascal(codes[0]) : (STATUS_NAMES[status] ?? `Error${status}`);
    let name = base;
    while (name in shared) {
      counts.set(base, (counts.get(base) ?? 1) + 1);
      name = `${base}${counts.get(base)}`;
    }
    shared[name] = response;
    names.set(text, name);
  }
  each((responses, status) => {
    const name = names.get(JSON.stringify(responses[status]));
    if (name) responses[status] = { $ref: `#/components/responses/${name}` };
  });
  return doc;
}
