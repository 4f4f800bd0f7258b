// The operation table of a bundled document: what the router, the request pipeline and the contract
// harness need to know about each operation, read once from the document.
import type { InterfaceName, OpenApiDocument } from './documents.js';
import { pointer } from './ajv.js';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface Resolved<T = Record<string, unknown>> {
  node: T;
  /** JSON pointer fragment of the node in the document, after following local $refs. */
  ref: string;
}

export interface ParameterInfo {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schemaRef: string;
  schema: Record<string, unknown>;
}

export interface MediaInfo {
  mediaType: string;
  schemaRef?: string;
  schema?: Record<string, unknown>;
  /** Form fields written as JSON text (OpenAPI `encoding.<field>.contentType: application/json`). */
  jsonFields: string[];
}

export interface ResponseInfo {
  status: string;
  content: MediaInfo[];
  headers: { name: string; required: boolean; schemaRef: string }[];
}

export interface OperationInfo {
  api: InterfaceName;
  operationId: string;
  method: HttpMethod;
  /** Path template as in the document: /api/alarms/{id} */
  path: string;
  /** The same path in Hono's syntax: /api/alarms/:id */
  routePath: string;
  parameters: ParameterInfo[];
  body?: { required: boolean; media: MediaInfo[] };
  responses: Map<string, ResponseInfo>;
  /** The operation object itself, for its x- extensions. */
  raw: Record<string, unknown>;
}

/** Follows local `$ref`s (`#/...`) to the node they name. */
export function resolveLocal(doc: OpenApiDocument, node: unknown, ref: string): Resolved {
  let current = node as Record<string, unknown>;
  let at = ref;
  for (let hops = 0; current && typeof current.$ref === 'string'; hops++) {
    if (hops > 32) throw new Error(`$ref loop at ${at}`);
    at = current.$ref as string;
    if (!at.startsWith('#/')) throw new Error(`only local $refs are expected in a bundled document, got ${at}`);
    current = at
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((n, key) => (n as Record<string, unknown>)?.[key], doc) as Record<string, unknown>;
  }
  if (!current) throw new Error(`unresolvable $ref ${at}`);
  return { node: current, ref: at };
}

function mediaInfos(doc: OpenApiDocument, content: unknown, ref: string): MediaInfo[] {
  return Object.entries((content ?? {}) as Record<string, Record<string, unknown>>).map(([mediaType, media]) => {
    const encoding = (media.encoding ?? {}) as Record<string, { contentType?: string }>;
    const info: MediaInfo = {
      mediaType,
      jsonFields: Object.entries(encoding)
        .filter(([, e]) => e.contentType?.includes('json'))
        .map(([field]) => field),
    };
    if (media.schema) {
      const schema = resolveLocal(doc, media.schema, `${ref}/${pointerSegmentOf(mediaType)}/schema`);
      info.schemaRef = `${ref}/${pointerSegmentOf(mediaType)}/schema`;
      info.schema = schema.node;
    }
    return info;
  });
}

const pointerSegmentOf = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The tables already read, per document object (documents are not changed once loaded). */
const tables = new WeakMap<OpenApiDocument, Map<InterfaceName, OperationInfo[]>>();

/** The operation table of a document: read once per document object, a fresh array each call. */
export function readOperations(api: InterfaceName, doc: OpenApiDocument): OperationInfo[] {
  let byApi = tables.get(doc);
  if (!byApi) tables.set(doc, (byApi = new Map()));
  let ops = byApi.get(api);
  if (!ops) byApi.set(api, (ops = readOperationsOnce(api, doc)));
  return [...ops];
}

function readOperationsOnce(api: InterfaceName, doc: OpenApiDocument): OperationInfo[] {
  const ops: OperationInfo[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const pathParams = (item.parameters ?? []) as unknown[];
    for (const method of HTTP_METHODS) {
      const raw = item[method] as Record<string, unknown> | undefined;
      if (!raw) continue;
      const opRef = pointer('paths', path, method);
      const parameters: ParameterInfo[] = [];
      const params = [
        ...pathParams.map((p, i) => [p, pointer('paths', path, 'parameters', String(i))] as const),
        ...((raw.parameters ?? []) as unknown[]).map((p, i) => [p, `${opRef}/parameters/${i}`] as const),
      ];
      for (const [p, ref] of params) {
        const { node, ref: at } = resolveLocal(doc, p, ref);
        const existing = parameters.findIndex((q) => q.name === node.name && q.in === node.in);
        const info: ParameterInfo = {
          name: node.name as string,
          in: node.in as ParameterInfo['in'],
          required: node.required === true,
          schemaRef: `${at}/schema`,
          schema: resolveLocal(doc, node.schema, `${at}/schema`).node,
        };
        if (existing >= 0) parameters[existing] = info;
        else parameters.push(info);
      }
      let body: OperationInfo['body'];
      if (raw.requestBody) {
        const { node, ref } = resolveLocal(doc, raw.requestBody, `${opRef}/requestBody`);
        body = { required: node.required === true, media: mediaInfos(doc, node.content, `${ref}/content`) };
      }
      const responses = new Map<string, ResponseInfo>();
      for (const [status, r] of Object.entries((raw.responses ?? {}) as Record<string, unknown>)) {
        const { node, ref } = resolveLocal(doc, r, `${opRef}/responses/${status}`);
        const headers = Object.entries((node.headers ?? {}) as Record<string, unknown>).map(([name, h]) => {
          const resolved = resolveLocal(doc, h, `${ref}/headers/${pointerSegmentOf(name)}`);
          return { name, required: resolved.node.required === true, schemaRef: `${resolved.ref}/schema` };
        });
        responses.set(status, { status, content: mediaInfos(doc, node.content, `${ref}/content`), headers });
      }
      ops.push({
        api,
        operationId: raw.operationId as string,
        method,
        path,
        routePath: path.replace(/\{([^}]+)\}/g, ':$1'),
        parameters,
        body,
        responses,
        raw,
      });
    }
  }
  return ops;
}

/** The response declared for a status: the exact code, then a range like 4XX, then default. */
export function declaredResponse(op: OperationInfo, status: number): ResponseInfo | undefined {
  return op.responses.get(String(status)) ?? op.responses.get(`${String(status)[0]}XX`) ?? op.responses.get('default');
}
