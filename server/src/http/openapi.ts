/**
 * GET /api/openapi.json: the OpenAPI 3.1 description of the API, generated from the endpoint table
 * of contracts (endpoints.ts, endpoint-schemas.ts) with zod's JSON Schema conversion, never written
 * by hand. GET /api/docs: the same document as a page, rendered here on the server (no script, no
 * CDN, nothing but this server). docs/architecture.md "The endpoint table".
 */
import {
  type Endpoint,
  type EndpointKey,
  type EndpointSchemas,
  endpointSchemas,
  endpoints,
  messages,
} from '@sitehall/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { route } from './endpoint-routes.js';

type JsonSchema = Record<string, unknown>;
type Operation = Record<string, unknown> & {
  summary: string;
  tags: string[];
  'x-access': Endpoint['access'];
};

/** A zod schema as JSON Schema 2020-12 (the dialect of OpenAPI 3.1), as a client sends or reads it. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** One parameter per property of a path or query schema. */
function parameters(schema: z.ZodType | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input');
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: propertySchema,
    };
  });
}

const envelope = (data: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['success', 'data'],
  properties: { success: { const: true }, data, message: { type: 'string', description: '给用户看的提示' } },
});

const failure = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } },
});

function requestBody(schemas: EndpointSchemas): JsonSchema | null {
  const content: Record<string, JsonSchema> = {};
  if (schemas.body) content['application/json'] = { schema: jsonSchema(schemas.body, 'input') };
  if (schemas.multipart) {
    const fields = jsonSchema(schemas.multipart, 'input');
    content['multipart/form-data'] = {
      schema: {
        ...fields,
        properties: {
          ...(fields.properties as JsonSchema),
          files: {
            type: 'array',
            description: '网站文件（每个文件的文件名即站内路径），或一个压缩包',
            items: { type: 'string', contentMediaType: 'application/octet-stream' },
          },
        },
        required: [...((fields.required ?? []) as string[]), 'files'],
      },
    };
  }
  if (Object.keys(content).length === 0) return null;
  return { required: true, content };
}

/** A raw body (a deploy's file): the bytes themselves, any content type. */
function rawBody(endpoint: Endpoint): JsonSchema | null {
  if (endpoint.body !== 'raw') return null;
  return {
    required: true,
    content: {
      'application/octet-stream': {
        schema: { type: 'string', contentMediaType: 'application/octet-stream' },
      },
    },
  };
}

/** Multipart files without text fields (a deploy's batch): each part a file, named by its SHA-256. */
function filesBody(endpoint: Endpoint, schemas: EndpointSchemas): JsonSchema | null {
  if (endpoint.body !== 'multipart' || schemas.multipart) return null;
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          description: '每一部分是一个文件，字段名为其内容的 SHA-256（64位小写十六进制）',
          additionalProperties: { type: 'string', contentMediaType: 'application/octet-stream' },
        },
      },
    },
  };
}

function successContent(endpoint: Endpoint, schemas: EndpointSchemas): JsonSchema {
  switch (endpoint.answers) {
    case 'zip':
      return { 'application/zip': { schema: { type: 'string', contentMediaType: 'application/zip' } } };
    case 'html':
      return { 'text/html': { schema: { type: 'string' } } };
    case 'webp':
      return { 'image/webp': { schema: { type: 'string', contentMediaType: 'image/webp' } } };
    case 'openapi':
      return { 'application/json': { schema: { type: 'object' } } };
    default:
      return {
        'application/json': { schema: envelope(schemas.data ? jsonSchema(schemas.data, 'output') : {}) },
      };
  }
}

function operation(key: EndpointKey): Operation {
  const endpoint: Endpoint = endpoints[key];
  const schemas: EndpointSchemas = endpointSchemas[key];
  const body = rawBody(endpoint) ?? filesBody(endpoint, schemas) ?? requestBody(schemas);
  const params = [...parameters(schemas.params, 'path'), ...parameters(schemas.query, 'query')];
  const validated = Boolean(schemas.body || schemas.query || schemas.multipart);
  const responses: Record<string, unknown> = {
    [String(endpoint.status ?? 200)]: { description: '成功', content: successContent(endpoint, schemas) },
    ...(validated ? { '400': failure('请求有误（errors 按字段给出原因）') } : {}),
    ...(endpoint.access !== 'public' ? { '401': failure('未登录或会话已过期') } : {}),
    ...(endpoint.access === 'admin' ? { '403': failure(messages.common.adminOnly) } : {}),
    ...(schemas.params ? { '404': failure('不存在（或无权查看）') } : {}),
    ...(endpoint.body ? { '413': failure('上传超出限制') } : {}),
    '429': failure('请求过于频繁'),
  };
  return {
    operationId: key,
    summary: schemas.summary,
    tags: [schemas.tag],
    'x-access': endpoint.access,
    // Public routes need no token; the rest take the session token as a bearer token.
    security: endpoint.access === 'public' ? [] : [{ bearerAuth: [] }],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/** The whole document, from the table. */
export function buildOpenApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const key of Object.keys(endpoints) as EndpointKey[]) {
    const endpoint: Endpoint = endpoints[key];
    const path = `/api${endpoint.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
    paths[path] ??= {};
    paths[path][endpoint.method.toLowerCase()] = operation(key);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'SiteHall API',
      version: '1',
      description:
        '站点展厅的接口。成功的回答是 { success: true, data, message? }，失败的是 { success: false, message, errors? }；' +
        'access 为 user 或 admin 的接口需要登录所得的令牌（Authorization: Bearer …）。',
    },
    servers: [{ url: '/' }],
    tags: [...new Set(Object.values(endpointSchemas).map((e) => e.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'POST /api/auth/login 返回的 token' },
      },
      schemas: {
        Failure: {
          type: 'object',
          required: ['success', 'message'],
          properties: {
            success: { const: false },
            message: { type: 'string', description: '给用户看的原因（中文）' },
            errors: { type: 'object', additionalProperties: { type: 'string' }, description: '按字段的原因' },
          },
        },
      },
    },
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const ACCESS_LABEL: Record<Endpoint['access'], string> = {
  public: '公开',
  user: '需登录',
  admin: '仅管理员',
};

/** The document as one page: each operation with its parameters, body and answers. */
export function renderApiDocs(document: JsonSchema): string {
  const json = (value: unknown) => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;
  const sections: string[] = [];
  const paths = document.paths as Record<string, Record<string, Operation>>;
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const parts = [
        op.parameters ? `<h4>参数</h4>${json(op.parameters)}` : '',
        op.requestBody ? `<h4>请求体</h4>${json(op.requestBody)}` : '',
        `<h4>回答</h4>${json(op.responses)}`,
      ];
      sections.push(
        `<details class="op" id="${escapeHtml(String(op.operationId))}"><summary>` +
          `<span class="method ${method}">${method.toUpperCase()}</span> <code class="path">${escapeHtml(path)}</code> ` +
          `<span class="summary">${escapeHtml(op.summary)}</span> <span class="access ${op['x-access']}">${ACCESS_LABEL[op['x-access']]}</span>` +
          `</summary>${parts.join('')}</details>`,
      );
    }
  }
  const info = document.info as { title: string; description: string };
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(info.title)} 接口文档</title><style>
body{font-family:system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:1.5em;color:#1f1f1f}
.op{border:1px solid #ddd;border-radius:6px;margin:.5em 0;padding:.4em .8em}
.op summary{cursor:pointer;display:flex;gap:.6em;align-items:center;flex-wrap:wrap}
.method{font-weight:600;min-width:4.5em;color:#fff;border-radius:4px;padding:.1em .4em;text-align:center;background:#555}
.method.get{background:#1677ff}.method.post{background:#52c41a}.method.put{background:#fa8c16}.method.patch{background:#13c2c2}.method.delete{background:#f5222d}
.access{font-size:.85em;border:1px solid #ccc;border-radius:4px;padding:0 .4em}.access.admin{color:#cf1322}.access.user{color:#0958d9}
pre{background:#f6f8fa;padding:.8em;overflow:auto;font-size:.85em}
</style></head><body><h1>${escapeHtml(info.title)} 接口文档</h1><p>${escapeHtml(info.description)}</p>
<p>机器可读的描述：<a href="/api/openapi.json">/api/openapi.json</a>（OpenAPI 3.1）</p>
${sections.join('\n')}
</body></html>`;
}

/** GET /api/openapi.json and GET /api/docs, both built once on first use. */
export async function apiDocsRoutes(app: FastifyInstance): Promise<void> {
  let document: JsonSchema | null = null;
  let page: string | null = null;
  const theDocument = () => {
    document ??= buildOpenApiDocument();
    return document;
  };
  route(app, 'openapi', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(theDocument()),
  );
  route(app, 'docs', async (_request, reply) => {
    page ??= renderApiDocs(theDocument());
    return reply.type('text/html; charset=utf-8').send(page);
  });
}
