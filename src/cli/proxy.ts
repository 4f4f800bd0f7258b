// `tusk proxy`: its flags and their variables read by its table (tables/proxy.ts), then the
// validating proxy started as a command (src/proxy/cli.ts).
import { readCommand } from './command.js';
import { UsageError, type FlagValue } from './flags.js';
import { PROXY } from './tables/index.js';

/** Both targets are required. */
function targetsGiven(values: Record<string, FlagValue>): void {
  for (const name of ['customer-target', 'instance-target'])
    if (values[name] === undefined)
      throw new UsageError(`--${name} (or ${PROXY.flags.find((f) => f.name === name)!.env}) is required`);
}

export async function proxyCommand(args: string[]): Promise<void> {
  const values = readCommand(PROXY, args, targetsGiven, 'tusk proxy');
  if (!values) return;
  const str = (name: string) => values[name] as string | undefined;
  const target = (name: string) => new URL(str(name)!).href.replace(/\/$/, '');
  const { proxyCommand: run } = await import('../proxy/cli.js');
  await run({
    customerTarget: target('customer-target'),
    instanceTarget: target('instance-target'),
    customerPort: Number(str('customer-port') ?? 4020),
    instancePort: Number(str('instance-port') ?? 4021),
    ...(str('host') ? { host: str('host') } : {}),
    annotate: values.annotate === true,
    strict: values.strict === true,
    ...(str('report') ? { report: str('report') } : {}),
    ...(str('junit') ? { junit: str('junit') } : {}),
    ...(str('coverage') ? { coverage: str('coverage') } : {}),
    failOnDeparture: values['fail-on-departure'] === true,
    ...(str('record') ? { record: str('record') } : {}),
    recordSecrets: values['record-secrets'] === true,
  });
}
