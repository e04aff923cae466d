import { createHash } from "node:crypto";
import { z } from "zod";
import { defineTool } from "./define-tool.js";

const schema = z.object({
  to: z.email().describe("Recipient e-mail address."),
  subject: z.string().min(1).max(200).describe("Subject line."),
  body: z.string().min(1).max(10_000).describe("Plain-text message body."),
});

/** A message send_email accepted; nothing leaves the process. */
export interface OutboxMessage {
  message_id: string;
  to: string;
  subject: string;
  body: string;
}

// Every accepted message in this process, in order: lets a test prove a blocked duplicate was never "sent".
const outbox: OutboxMessage[] = [];

/** The messages send_email accepted since the last reset, oldest first. */
export function sentEmails(): OutboxMessage[] {
  return outbox.map((m) => ({ ...m }));
}

/** Empty the outbox and restart message ids from the first. */
function resetOutbox(): void {
  outbox.length = 0;
}

/** Pretend to send an e-mail: the side-effecting tool a loop must never repeat. */
export const sendEmail = defineTool(
  {
    name: "send_email",
    description: "Send an e-mail to one recipient. Every call sends a new message, so never call it twice for the same message.",
    schema,
    nature: "side_effecting",
    timeoutMs: 15_000,
    examples: [{ to: "ops@example.com", subject: "Export finished", body: "The nightly export is done." }],
    reset: resetOutbox,
  },
  ({ to, subject, body }) => {
    // The sequence number makes a repeated identical send a distinct message, as a real mail API would.
    const sequence = outbox.length + 1;
    const digest = createHash("sha256").update(JSON.stringify([to, subject, body, sequence])).digest("hex");
    const message_id = `msg_${digest.slice(0, 16)}`;
    outbox.push({ message_id, to, subject, body });
    return { status: "sent", message_id, to };
  },
);
