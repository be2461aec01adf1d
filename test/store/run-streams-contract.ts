import { describeContract, type StoreKind } from './run-store-contract/store-harness.js';
import { controlContract } from './run-streams-contract/control-contract.js';
import { logContract } from './run-streams-contract/log-contract.js';
import { subscriberContract } from './run-streams-contract/subscriber-contract.js';

/**
 * What every `RunStreams` does (src/runs/run-streams.ts), as tests driven through the two ports alone:
 * no HTTP, no scheduler, runs published with an inbox that records what reaches it, a clock moved by
 * hand. As for `runStoreContract`, `setup` is called inside the suite; both stores pass the same tests.
 */
export function runStreamsContract(name: string, setup: () => StoreKind): void {
  describeContract(`${name}, as every RunStreams`, setup, [logContract, subscriberContract, controlContract]);
}
