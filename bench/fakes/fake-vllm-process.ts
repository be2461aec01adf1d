import { startFakeVllmServer } from '../../test/support/fake-vllm/fake-vllm-server.js';
import { serveBenchCalls } from '../support/bench-child.js';
import { TOKEN_IN_POLICY } from './token-in-policy.js';

// The fake vLLM server of the tests in a process of its own, streaming a token a chunk as vLLM does.
const server = await startFakeVllmServer({ policy: TOKEN_IN_POLICY, tokensPerChunk: 1, maxModelLen: 1_000_000 });
serveBenchCalls({ url: () => server.url }, () => server.close());
