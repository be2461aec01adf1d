import { describe, expect, it } from 'vitest';
import { startFakeVendorServer } from '../support/fake-vendor-server.js';
import { useStarted } from '../support/use-started.js';
import { PATIENCE, useChatPageRig, waitForForm } from './support/chat-page.js';

/**
 * The start form's model picker on a bridge whose `openai` provider is an OpenAI-compatible server:
 * it offers what that server serves, and its first choice says which model the bridge's default is.
 */
describe("the chat page's model picker", () => {
  const vendor = useStarted(
    'the OpenAI-compatible server',
    async () => {
      const server = await startFakeVendorServer();
      server.reply('GET /v1/models', {
        kind: 'json',
        status: 200,
        body: { object: 'list', data: [{ id: 'qwen-small', object: 'model', created: 0, owned_by: 'vllm' }] },
      });
      return server;
    },
    (server) => server.close(),
  );
  const rig = useChatPageRig(() => ({ OPENAI_BASE_URL: `${vendor.url}/v1`, RUNBRIDGE_MODEL: 'openai:qwen-small' }));

  it("names the bridge's default model, and lists the models the server serves", async () => {
    const { tab, problems } = await rig.open();
    await waitForForm(tab);
    const options = tab.getByLabel('Model', { exact: true }).locator('option');
    await expect
      .poll(() => options.allTextContents(), PATIENCE)
      .toEqual([
        "The bridge's default (openai:qwen-small)",
        'offline',
        'openai:qwen-small',
        'openai-responses:qwen-small',
      ]);
    expect(problems).toEqual([]);
  });
});
