import type { CompletionScript, ScriptedReply } from "./fake-openai-server.js";

/** Tool replies sent after the last user message: how far the model is into the current turn. */
export function toolRepliesThisTurn(messages: readonly Record<string, unknown>[]): number {
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  return messages.slice(lastUser + 1).filter((m) => m.role === "tool").length;
}

/** The same failing SQL query on every turn: a runaway model, as OpenAI would send it. */
export const loopingSqlScript: CompletionScript = () => ({
  toolCalls: [{ name: "query_database", args: { sql: "SELECT * FROM overdue_invoices" } }],
  usage: { prompt_tokens: 120, completion_tokens: 18 },
});

/** The final answer of the clean script. */
export const CLEAN_ANSWER = "Acme Corp (acc_001) had the revenue shown in its financial records.";

/** A CRM lookup, then the account's financials, then an answer: a task that ends by itself. */
export const cleanCrmScript: CompletionScript = (request) => {
  const steps: ScriptedReply[] = [
    { toolCalls: [{ name: "query_crm", args: { company_name: "Acme Corp" } }], usage: { prompt_tokens: 100, completion_tokens: 15 } },
    { toolCalls: [{ name: "get_financials", args: { account_id: "acc_001" } }], usage: { prompt_tokens: 180, completion_tokens: 15 } },
  ];
  return steps[toolRepliesThisTurn(request.messages)] ?? { content: CLEAN_ANSWER, usage: { prompt_tokens: 260, completion_tokens: 20 } };
};

/** A plain answer to whatever was asked: the turn after a trip. */
export const plainAnswerScript = (content: string): CompletionScript => () => ({ content });
