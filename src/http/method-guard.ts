// The method guard of both interfaces: a method the document does not give a path is a 405 with
// Allow (the path's methods, sorted; HEAD wherever GET is). The most specific template decides, so
// a literal path (/api/alarms/recipients) is never taken by a sibling template (/api/alarms/{id})
// for a method only the template has. It runs first in the routes where a more specific template
// could match (forRoute) and in the not-found handler (check).
import type { Context } from 'hono';
import type { OperationInfo } from '../openapi/operations.js';
import { ApiError } from '../core/errors.js';

interface Template {
  path: string;
  regex: RegExp;
  params: number;
  header: string;
  methods: Set<string>;
}

/** For a request path, the methods of the most specific matching path of the document. */
export function methodGuard(ops: OperationInfo[]) {
  const byPath = new Map<string, Set<string>>();
  for (const o of ops) {
    if (!byPath.has(o.path)) byPath.set(o.path, new Set());
    byPath.get(o.path)!.add(o.method.toUpperCase());
  }
  const templates: Template[] = [...byPath]
    .map(([path, methods]) => ({
      path,
      regex: new RegExp('^' + path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
      params: (path.match(/\{/g) ?? []).length,
      header: [...methods].sort().join(', '),
      methods: new Set(methods.has('GET') ? [...methods, 'HEAD'] : methods),
    }))
    .sort((a, b) => a.params - b.params);
  const refuse = (c: Context, t: Template | undefined) => {
    if (t && !t.methods.has(c.req.method)) {
      throw new ApiError(
        405,
        `Method ${c.req.method} is not allowed for ${c.req.path}; allowed: ${t.header}`,
        {},
        { Allow: t.header },
      );
    }
  };
  const segments = (path: string) => path.split('/').length;
  return {
    /** Throws the 405 when the most specific template of the path lacks the method. */
    check(c: Context): void {
      const path = c.req.path;
      refuse(
        c,
        templates.find((t) => t.regex.test(path)),
      );
    },
    /**
     * The check for a request routed to `op`: its own template matches and allows the method, so
     * only the templates before it in specificity, of as many segments, can decide otherwise.
     * Undefined when there are none (most routes): no check at all.
     */
    forRoute(op: OperationInfo): ((c: Context) => void) | undefined {
      const own = templates.findIndex((t) => t.path === op.path);
      const before = templates.slice(0, own).filter((t) => segments(t.path) === segments(op.path));
      if (!before.length) return undefined;
      return (c) => {
        const path = c.req.path;
        refuse(
          c,
          before.find((t) => t.regex.test(path)),
        );
      };
    },
  };
}
