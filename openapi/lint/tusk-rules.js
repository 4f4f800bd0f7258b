// Tusk's own lint rules for the OpenAPI documents (Redocly CLI plugin). All run at error level
// from openapi/redocly.yaml. They encode the house style of openapi/CONVENTIONS.md.

const ROLES = ['admin', 'devops', 'member', 'monitor', 'billing manager'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const OPERATION_ID =
  /^(list|get|create|update|delete|invite|remove|rotate|restore|recover|run|reschedule)[A-Z][A-Za-z0-9]*$/;

/** Callback operations describe requests Tusk sends, not operations it serves: the house rules skip them. */
const inCallback = (ctx) => ctx.location.pointer.includes('/callbacks/');
const deref = (node, ctx) => (node && node.$ref ? ctx.resolve(node).node : node);
const hasExample = (media) =>
  media && (media.example !== undefined || (media.examples && Object.keys(media.examples).length > 0));

/** operationId is lowerCamelCase and starts with one of the house verbs. */
function OperationIdNaming() {
  return {
    Operation: {
      enter(op, ctx) {
        if (inCallback(ctx)) return;
        if (typeof op.operationId !== 'string' || !OPERATION_ID.test(op.operationId)) {
          ctx.report({
            message: `operationId "${op.operationId}" must match ${OPERATION_ID} (a house verb, then the resource in PascalCase)`,
            location: ctx.location.child('operationId'),
          });
        }
      },
    },
  };
}

/**
 * Every operation declares the error statuses that can occur for it:
 * 401 (WWW-Authenticate), 405 (Allow), 429 (Retry-After) and 500 always; 400 when it takes input;
 * 413 when it takes a body;
 * 404 on every path with a path parameter; 403 when x-roles leaves a role out.
 * With the option `roles: true`, every operation must carry x-roles.
 */
function ErrorResponses(opts = {}) {
  return {
    PathItem: {
      enter(item, ctx) {
        if (inCallback(ctx)) return;
        const path = ctx.key;
        for (const method of METHODS) {
          const op = item[method];
          if (!op) continue;
          const at = ctx.location.child(method);
          const responses = op.responses || {};
          const need = (code, why) => {
            if (!responses[code])
              ctx.report({
                message: `${method.toUpperCase()} ${path} must declare ${code} (${why})`,
                location: at.child('responses'),
              });
          };
          need('401', 'every operation authenticates');
          need('405', 'every path answers 405 to a wrong method');
          need('429', 'every operation is rate limited');
          need('500', 'the spec lists 500 for every operation');
          const params = [...(item.parameters || []), ...(op.parameters || [])];
          if (params.length > 0 || op.requestBody) need('400', 'it takes parameters or a body');
          if (op.requestBody) need('413', 'it takes a body, and bodies over the size limit are refused');
          if (path.includes('{')) need('404', 'its path has a path parameter');
          if (!Object.keys(responses).some((c) => /^2\d\d$/.test(c))) {
            ctx.report({
              message: `${method.toUpperCase()} ${path} declares no 2xx response`,
              location: at.child('responses'),
            });
          }
          const roles = op['x-roles'];
          if (opts.roles && roles === undefined) {
            ctx.report({ message: `${method.toUpperCase()} ${path} must declare x-roles`, location: at });
          }
          if (roles !== undefined) {
            const bad = Array.isArray(roles) ? roles.filter((r) => !ROLES.includes(r)) : ['(not an array)'];
            if (!Array.isArray(roles) || roles.length === 0 || bad.length) {
              ctx.report({
                message: `x-roles must be a non-empty list of ${ROLES.join(', ')}; got ${JSON.stringify(roles)}`,
                location: at.child('x-roles'),
              });
            } else if (roles.length < ROLES.length) {
              need('403', 'x-roles leaves some role out');
            } else if (responses['403']) {
              ctx.report({
                message: `${method.toUpperCase()} ${path} declares 403 though every role may call it`,
                location: at.child('responses'),
              });
            }
          }
          const header = (code, name) => {
            const res = deref(responses[code], ctx);
            if (res && !(res.headers && res.headers[name])) {
              ctx.report({
                message: `${code} response of ${method.toUpperCase()} ${path} must declare the ${name} header`,
                location: at.child(['responses', code]),
              });
            }
          };
          header('401', 'WWW-Authenticate');
          header('405', 'Allow');
          header('429', 'Retry-After');
        }
      },
    },
  };
}

/** Request bodies and success responses with content carry an example on every media type. */
function OperationExamples() {
  return {
    Operation: {
      enter(op, ctx) {
        const body = deref(op.requestBody, ctx);
        for (const [type, media] of Object.entries((body && body.content) || {})) {
          if (!hasExample(media))
            ctx.report({
              message: `request body ${type} has no example`,
              location: ctx.location.child(['requestBody', 'content', type]),
            });
        }
        for (const [code, ref] of Object.entries(op.responses || {})) {
          if (!/^2\d\d$/.test(code)) continue;
          const res = deref(ref, ctx);
          for (const [type, media] of Object.entries((res && res.content) || {})) {
            if (!hasExample(media))
              ctx.report({
                message: `response ${code} ${type} has no example`,
                location: ctx.location.child(['responses', code, 'content', type]),
              });
          }
        }
      },
    },
  };
}

/** Every schema property that is not a $ref (or a const) has an example. */
function PropertyExamples() {
  return {
    SchemaProperties: {
      enter(props, ctx) {
        for (const [name, prop] of Object.entries(props || {})) {
          if (!prop || typeof prop !== 'object' || prop.$ref || prop.const !== undefined) continue;
          if (prop.example === undefined && !(Array.isArray(prop.examples) && prop.examples.length)) {
            ctx.report({ message: `property "${name}" has no example`, location: ctx.location.child(name) });
          }
        }
      },
    },
  };
}

export default function tuskPlugin() {
  return {
    id: 'tusk',
    rules: {
      oas3: {
        'operation-id-naming': OperationIdNaming,
        'error-responses': ErrorResponses,
        'operation-examples': OperationExamples,
        'property-examples': PropertyExamples,
      },
    },
  };
}
