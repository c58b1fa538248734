/**
 * `/openapi/v2` (Swagger 2.0) for clients older than OpenAPI v3 support: one document with every
 * served kind, converted from the v3 group-version documents (`openapi.ts`): schemas become
 * `definitions` (references rewritten), each operation's request body a `body` parameter with
 * `consumes`, and query parameters plain typed parameters.
 */

type JsonMap = Record<string, unknown>;

function isMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `value` with `#/components/schemas/X` references made `#/definitions/X`. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (!isMap(value)) return value;
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '#/definitions/') : rewriteRefs(v);
  }
  return out;
}

function parameterV2(parameter: unknown): unknown {
  if (!isMap(parameter)) return parameter;
  const { schema, ...rest } = parameter;
  return { ...rest, ...(isMap(schema) && { type: schema['type'] }) };
}

function operationV2(operation: JsonMap): JsonMap {
  const { requestBody, responses, parameters, ...rest } = operation;
  const out: JsonMap = { ...rest, produces: ['application/json'], schemes: ['https'] };
  const params = Array.isArray(parameters) ? parameters.map(parameterV2) : [];
  if (isMap(requestBody) && isMap(requestBody['content'])) {
    const content = requestBody['content'];
    out['consumes'] = Object.keys(content);
    const first = Object.values(content)[0];
    params.push({ name: 'body', in: 'body', required: true, schema: isMap(first) ? first['schema'] : {} });
  }
  if (params.length > 0) out['parameters'] = params;
  const responsesV2: JsonMap = {};
  for (const [code, response] of Object.entries(isMap(responses) ? responses : {})) {
    if (!isMap(response)) continue;
    const json = isMap(response['content']) ? response['content']['application/json'] : undefined;
    responsesV2[code] = { description: response['description'], ...(isMap(json) && { schema: json['schema'] }) };
  }
  out['responses'] = responsesV2;
  return out;
}

/** The Swagger 2.0 document of the given v3 documents. */
export function swaggerDocument(v3Documents: readonly JsonMap[]): JsonMap {
  const definitions: JsonMap = {};
  const paths: JsonMap = {};
  for (const doc of v3Documents) {
    const components = isMap(doc['components']) ? doc['components'] : {};
    Object.assign(definitions, rewriteRefs(isMap(components['schemas']) ? components['schemas'] : {}));
    for (const [path, item] of Object.entries(isMap(doc['paths']) ? doc['paths'] : {})) {
      if (!isMap(item)) continue;
      const converted: JsonMap = {};
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters') converted[method] = Array.isArray(operation) ? operation.map(parameterV2) : operation;
        else if (isMap(operation)) converted[method] = rewriteRefs(operationV2(operation));
      }
      paths[path] = converted;
    }
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths, definitions };
}
