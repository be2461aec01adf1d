/**
 * The attribute names of the OpenTelemetry GenAI semantic conventions the spans use. The conventions
 * are still "development" status, and `@opentelemetry/semantic-conventions` asks instrumentations to
 * copy such names rather than import its `incubating` entry point, whose minor releases may rename them.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  requestTemperature: 'gen_ai.request.temperature',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTopP: 'gen_ai.request.top_p',
  requestSeed: 'gen_ai.request.seed',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolCallId: 'gen_ai.tool.call.id',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
} as const;

/**
 * `gen_ai.provider.name` of a runbridge provider: the conventions' well-known value where there is one
 * (both OpenAI APIs are `openai`), else the provider's own name.
 */
export function genAiProviderName(provider: string): string {
  return provider === 'openai-responses' ? 'openai' : provider;
}
