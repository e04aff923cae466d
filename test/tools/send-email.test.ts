import { beforeEach, describe, expect, it } from "vitest";
import { resetToolFixtures } from "../../tools/index.js";
import { sendEmail, sentEmails } from "../../tools/send-email.js";
import { run, SCHEMA_REJECTION } from "./invoke.js";

const MESSAGE = { to: "cfo@acme.example", subject: "Q3 numbers", body: "Revenue was $12.8M." };

describe("send_email", () => {
  beforeEach(() => resetToolFixtures());

  it("accepts a message, records it in the outbox and returns a message id", async () => {
    const out = await run(sendEmail, MESSAGE);
    expect(out).toEqual({ status: "sent", message_id: expect.stringMatching(/^msg_[0-9a-f]{16}$/), to: MESSAGE.to });
    expect(sentEmails()).toEqual([{ message_id: out.message_id, ...MESSAGE }]);
  });

  it("gives a repeated identical send a new id: each call is a new message", async () => {
    const first = await run(sendEmail, MESSAGE);
    const second = await run(sendEmail, MESSAGE);
    expect(second.message_id).not.toBe(first.message_id);
    expect(sentEmails()).toHaveLength(2);
  });

  it("derives ids from the inputs and the send count, so a reset replays them", async () => {
    const other = { ...MESSAGE, subject: "Q4 numbers" };
    const ids = async () => [(await run(sendEmail, MESSAGE)).message_id, (await run(sendEmail, other)).message_id];
    const first = await ids();
    expect(first[0]).not.toBe(first[1]);
    resetToolFixtures();
    expect(await ids()).toEqual(first);
  });

  it.each([
    { ...MESSAGE, to: "not-an-address" },
    { ...MESSAGE, to: "cfo@" },
    { ...MESSAGE, subject: "" },
    { to: MESSAGE.to, subject: MESSAGE.subject },
  ])("rejects %j and sends nothing", async (args) => {
    await expect(run(sendEmail, args)).rejects.toThrow(SCHEMA_REJECTION);
    expect(sentEmails()).toEqual([]);
  });
});
