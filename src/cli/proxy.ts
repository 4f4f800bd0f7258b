// `tusk proxy`: its flags and their variables read by the table (tables.ts, PROXY), then the
// validating proxy started as a command (src/proxy/cli.ts).
import { fail } from './fail.js';
import { helpOf, readFlags, UsageError } from './flags.js';
import { PROXY } from './tables/index.js';

export const PROXY_HELP = helpOf(PROXY);

export async function proxyCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = readFlags(PROXY, args));
    if (!values.help)
      for (const name of ['customer-target', 'instance-target'])
        if (values[name] === undefined)
          throw new UsageError(`--${name} (or ${PROXY.flags.find((f) => f.name === name)!.env}) is required`);
  } catch (err) {
    if (err instanceof UsageError) fail(`${err.message}\n\n${PROXY_HELP}`, undefined, 'tusk proxy');
    throw err;
  }
  if (values.help) {
    process.stdout.write(PROXY_HELP);
    return;
  }
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
