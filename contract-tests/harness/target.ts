// The deployment under test: from TUSK_CUSTOMER_URL, TUSK_INSTANCE_URL and TUSK_API_KEY, or, when
// they are unset, the reference implementation started in-process on free ports.
export interface Target {
  customerUrl: string;
  instanceUrl: string;
  /** An admin key of the customer interface. */
  apiKey: string;
  inProcess: boolean;
  close(): Promise<void>;
}

export async function openTarget(env: NodeJS.ProcessEnv = process.env): Promise<Target> {
  const { TUSK_CUSTOMER_URL: customerUrl, TUSK_INSTANCE_URL: instanceUrl, TUSK_API_KEY: apiKey } = env;
  if (customerUrl || instanceUrl) {
    if (!customerUrl || !instanceUrl || !apiKey) {
      throw new Error('set all of TUSK_CUSTOMER_URL, TUSK_INSTANCE_URL and TUSK_API_KEY, or none of them to test the in-process reference implementation');
    }
    return { customerUrl: customerUrl.replace(/\/$/, ''), instanceUrl: instanceUrl.replace(/\/$/, ''), apiKey, inProcess: false, close: async () => undefined };
  }
  const { startTusk } = await import('../../src/server.js');
  // Short delays, so that readiness and callbacks arrive within a test's patience.
  const tusk = await startTusk({ customerPort: 0, instancePort: 0, log: 'off', provisionDelayMs: 200, registry: { backupDelayMs: 200, restoreDelayMs: 200, outbox: { retryDelayMs: 200, timeoutMs: 1000 } } });
  return { customerUrl: tusk.customerUrl, instanceUrl: tusk.instanceUrl, apiKey: tusk.registry.adminKey, inProcess: true, close: () => tusk.close() };
}
