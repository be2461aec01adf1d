import { admissionContract } from './run-store-contract/admission-contract.js';
import { instanceContract } from './run-store-contract/instance-contract.js';
import { keyContract } from './run-store-contract/key-contract.js';
import { listContract } from './run-store-contract/list-contract.js';
import { rolloutPairContract } from './run-store-contract/rollout-pair-contract.js';
import { describeContract, type StoreKind } from './run-store-contract/store-harness.js';
import { upkeepContract } from './run-store-contract/upkeep-contract.js';

export type { StoreKind } from './run-store-contract/store-harness.js';

/**
 * What every `RunStore` does (src/runs/run-store.ts), as tests driven through the interface alone (and
 * its streams, to publish and play the runs as the scheduler does): no HTTP, no scheduler, a clock moved
 * by hand. `setup` is called inside the suite, so the hooks it registers belong to it; it answers how to
 * open an instance of the store. Both stores pass the same tests, so a caller gets the same answers —
 * the same refusals, in the same words — whichever store holds the runs.
 */
export function runStoreContract(name: string, setup: () => StoreKind): void {
  describeContract(`${name}, as every RunStore`, setup, [
    admissionContract,
    listContract,
    keyContract,
    upkeepContract,
    instanceContract,
    rolloutPairContract,
  ]);
}
