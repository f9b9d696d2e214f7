/**
 * The entry of `dist/deferred.js`: everything the extension needs only once the user runs
 * something (generate, judge, snapshot, report, agent runs, the LLM clients and the offline
 * generator behind them). Activation loads `dist/extension.js` alone; `onDemand.ts` loads this
 * bundle on first use, so `@google/genai`, `openai`, the MCP SDK, ajv and faker stay off the
 * activation path.
 */
export { runAgentScenarios } from './agentRun';
export { generateEvals } from './generateCommand';
export { judge } from './judgeCommand';
export { chatProviderFor } from './providerChoice';
export { regenerateStaleRecords } from './regenerateStaleCommand';
export { openReport, ReportPanel } from './reportPanel';
export { snapshotServer } from './snapshotCommand';
export { pickChatModelId } from './vscodeLm';
