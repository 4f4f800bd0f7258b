// The departures the validating proxy (proxy.ts) finds: each logged one line (operation, side,
// field, rule; never a key or a body, nor the message of a request's departure), counted, and the
// latest kept for GET /__tusk/departures; and the `Tusk-Departures` header naming an exchange's.
import type { InterfaceName } from '../openapi/documents.js';
import type { Departure } from '../openapi/exchange.js';

/** One departure as the proxy reports it. */
export interface ReportedDeparture extends Departure {
  time: string;
  api: InterfaceName;
  /** The operation the request was for (null: none of the document's). */
  operation_id: string | null;
  method: string;
  path: string;
  /** The target's status (absent for a request refused by --strict or not forwarded). */
  status?: number;
}

/** Departures kept for GET /__tusk/departures (the oldest go first). */
const MAX_KEPT = 10_000;

export class DepartureLog {
  /** The latest departures, oldest first. */
  readonly kept: ReportedDeparture[] = [];
  /** Departures seen in all (the kept list is bounded). */
  count = 0;

  constructor(private readonly log: (line: string) => void) {}

  /** Logs, counts and keeps the departures of one exchange. */
  note(
    api: InterfaceName,
    operationId: string | null,
    method: string,
    path: string,
    status: number | undefined,
    found: Departure[],
  ): void {
    for (const d of found) {
      this.count++;
      const reported: ReportedDeparture = {
        time: new Date().toISOString(),
        api,
        operation_id: operationId,
        method,
        path,
        ...(status !== undefined ? { status } : {}),
        ...d,
      };
      this.kept.push(reported);
      if (this.kept.length > MAX_KEPT) this.kept.shift();
      // Never the message of a request departure: it may quote a value of the body.
      this.log(
        `tusk proxy: departure (${d.side}) ${api} ${operationId ?? '-'} ${method} ${path}${status !== undefined ? ` ${status}` : ''}: ${d.field ? `${d.field}: ` : ''}rule ${d.rule}${d.side === 'response' ? ` - ${d.message}` : ''}`,
      );
    }
  }
}

/** `Tusk-Departures`: the departures of one exchange, `side field rule` each, comma-separated (Latin-1 safe). */
export function departureHeader(found: Departure[]): string {
  return found
    .map((d) => `${d.side} ${d.field ?? '-'} ${d.rule}`.replace(/[^\x20-\x7e]|,/g, (ch) => encodeURIComponent(ch)))
    .join(', ');
}
