// `tusk replay FILE`: its flags and their variables read by the table (tables/recordings.ts,
// REPLAY), then the replay run as a command (src/replay/cli.ts).
import { fail } from './command.js';
import { helpOf, readFlags, UsageError } from './flags.js';
import { REPLAY } from './tables/index.js';

export const REPLAY_HELP = helpOf(REPLAY);

export async function replayCommand(args: string[]): Promise<void> {
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = readFlags(REPLAY, args));
    if (!values.help) {
      if (positionals.length !== 1) throw new UsageError(`give one recording (FILE), got ${positionals.length}`);
      for (const name of ['customer-url', 'instance-url'])
        if (values[name] === undefined)
          throw new UsageError(`--${name} (or ${REPLAY.flags.find((f) => f.name === name)!.env}) is required`);
    }
  } catch (err) {
    if (err instanceof UsageError) fail(`${err.message}\n\n${REPLAY_HELP}`, undefined, 'tusk replay');
    throw err;
  }
  if (values.help) {
    process.stdout.write(REPLAY_HELP);
    return;
  }
  const str = (name: string) => values[name] as string | undefined;
  const { replayCommand: run } = await import('../replay/cli.js');
  await run({
    file: positionals[0]!,
    customerUrl: str('customer-url')!,
    instanceUrl: str('instance-url')!,
    ...(str('api-key') ? { apiKey: str('api-key') } : {}),
    ...(str('instance-key') ? { instanceKey: str('instance-key') } : {}),
    ...(str('junit') ? { junit: str('junit') } : {}),
    timeoutMs: Number(str('timeout') ?? 30_000),
  });
}
