// `tusk replay FILE`: its flags and their variables read by the table (tables/recordings.ts,
// REPLAY), then the replay run as a command (src/replay/cli.ts).
import { POSITIONALS, readCommand, required } from './command.js';
import { helpOf, UsageError } from './flags.js';
import { REPLAY } from './tables/index.js';

export const REPLAY_HELP = helpOf(REPLAY);

export async function replayCommand(args: string[]): Promise<void> {
  const values = readCommand(
    REPLAY,
    args,
    (flags, positionals) => {
      if (positionals.length !== 1) throw new UsageError(`give one recording (FILE), got ${positionals.length}`);
      required(REPLAY, ['customer-url', 'instance-url'])(flags);
    },
    'tusk replay',
  );
  if (!values) return;
  const positionals = values[POSITIONALS]!;
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
