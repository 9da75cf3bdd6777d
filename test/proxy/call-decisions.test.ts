import { describe, expect, it } from "vitest";
import { ToolAdmission } from "../../src/proxy/admission.js";
import type { AuditRecord } from "../../src/proxy/audit-log.js";
import { ProxyAuditor } from "../../src/proxy/auditor.js";
import { CallDecisions } from "../../src/proxy/call-decisions.js";
import type { DelegationAnswer, DelegationGate } from "../../src/proxy/delegation-gate.js";
import type { JsonRpcMessage } from "../../src/proxy/json-rpc.js";
import type { HeldCall } from "../../src/proxy/types.js";

// The call decision on its own, with the real admission and auditor: which verdict a
// refusal names, that the delegation is asked only after the pins, and what happens to a
// call while its delegation answer is on the way. The gate here is the proxy's own
// interface, answered by hand so the test decides when.

function heldCall(id: number, name: string): HeldCall {
  const message = { jsonrpc: "2.0", id, method: "tools/call", params: { name } };
  return {
    received: { message, raw: JSON.stringify(message) },
    request: {
      from: "client",
      id,
      method: "tools/call",
      cursor: undefined,
      sent: false,
      reused: false,
    },
  };
}

/** A gate whose answers the test gives, one pending promise per question. */
function manualGate() {
  const asked: { tool: string; answer(a: DelegationAnswer): void }[] = [];
  const gate: DelegationGate = {
    agent: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
    roots: ["did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH"],
    capabilityOf: (tool) => tool,
    check: (tool) => new Promise((answer) => asked.push({ tool, answer })),
  };
  return { gate, asked };
}

const allow: DelegationAnswer = {
  allowed: true,
  capability: "echo",
  root: "r",
  cached: false,
  reason: "granted",
};
const deny: DelegationAnswer = {
  allowed: false,
  code: "TOOL_NOT_AUTHORIZED",
  capability: "send",
  reason: "not granted",
};

function setup(options: { gate?: DelegationGate; observe?: boolean } = {}) {
  const records: AuditRecord[] = [];
  const logs: string[] = [];
  const auditor = new ProxyAuditor(
    (r) => records.push(r),
    "fx",
    (l) => logs.push(l),
    {
      observe: options.observe === true,
    },
  );
  const admission = new ToolAdmission();
  const forwarded: unknown[] = [];
  const answered: JsonRpcMessage[] = [];
  const held: HeldCall[] = [];
  let busy = false;
  const calls = new CallDecisions({
    admission,
    auditor,
    gate: options.gate,
    observe: options.observe === true,
    log: (line) => logs.push(line),
    forward: (call) => forwarded.push(call.request.id),
    answer: (_call, message) => answered.push(message),
    hold: (call) => held.push(call),
    listingBusy: () => busy,
  });
  const setBusy = (value: boolean) => {
    busy = value;
  };
  return { calls, admission, auditor, records, logs, forwarded, answered, held, setBusy };
}

const listing = (admitted: string[], refused: { name: string; verdict: string }[] = []) => ({
  allowed: refused.length === 0,
  admitted,
  refused: refused.map((r, index) => ({
    name: r.name,
    index,
    reason: "drift" as const,
    detail: `${r.name} moved`,
  })),
  missing: [],
  decisions: [],
});

const text = (m: JsonRpcMessage) => (m.result as { content: { text: string }[] }).content[0]!.text;

describe("CallDecisions", () => {
  it("names the verdict that refused a tool: its listing verdict, closed, listing_failed, not_listed", () => {
    const { calls, admission, auditor, answered, records } = setup();
    const check = listing(["echo"], [{ name: "send", verdict: "drift" }]);
    auditor.listingCheck(check, "proxy");
    admission.adoptListing(check);
    calls.decide(heldCall(1, "send"), "send");
    calls.decide(heldCall(2, "ghost"), "ghost");
    calls.decide(heldCall(3, "echo"), "echo");
    expect(answered.map(text)).toEqual([
      expect.stringMatching(
        /^AIRLOCK_BLOCK: tool "send" is not admitted \(drift\): send moved; the call was not forwarded/,
      ),
      expect.stringMatching(
        /^AIRLOCK_BLOCK: tool "ghost" is not admitted \(not_listed\): the server does not list it/,
      ),
    ]);
    auditor.listingFailed("timeout", "the server did not answer tools/list within 30000 ms");
    admission.admitNothing();
    calls.decide(heldCall(4, "echo"), "echo");
    expect(text(answered[2]!)).toMatch(
      /\(listing_failed\): the proxy's listing of the server failed/,
    );
    expect(
      records
        .filter((r) => r.event === "tool_call_check")
        .map((r) => [r.toolName, r.allowed, r.verdict]),
    ).toEqual([
      ["send", false, "drift"],
      ["ghost", false, "not_listed"],
      ["echo", true, "allow_pinned"],
      ["echo", false, "listing_failed"],
    ]);
  });

  it("asks the delegation only for a tool the pins admit, and refuses with the guard's code", async () => {
    const { gate, asked } = manualGate();
    const { calls, admission, forwarded, answered, records } = setup({ gate });
    admission.adoptListing(listing(["echo", "send"]));
    calls.decide(heldCall(1, "nope"), "nope");
    expect(asked).toEqual([]);
    calls.decide(heldCall(2, "echo"), "echo");
    calls.decide(heldCall(3, "send"), "send");
    expect(asked.map((q) => q.tool)).toEqual(["echo", "send"]);
    asked[1]!.answer(deny);
    asked[0]!.answer(allow);
    await new Promise((r) => setImmediate(r));
    expect(forwarded).toEqual([2]);
    expect(text(answered[1]!)).toMatch(
      /^AIRLOCK_BLOCK: tool "send" is not admitted \(TOOL_NOT_AUTHORIZED\): not granted/,
    );
    const send = records.find((r) => r.event === "tool_call_check" && r.toolName === "send");
    expect(send).toMatchObject({
      verdict: "TOOL_NOT_AUTHORIZED",
      delegation: "TOOL_NOT_AUTHORIZED",
      capability: "send",
    });
  });

  it("holds a call again when its ALLOW arrives during a listing, and refuses it if that listing refused the tool", async () => {
    const { gate, asked } = manualGate();
    const { calls, admission, auditor, forwarded, answered, held, setBusy } = setup({ gate });
    admission.adoptListing(listing(["echo"]));
    const call = heldCall(1, "echo");
    calls.decide(call, "echo");
    setBusy(true);
    asked[0]!.answer(allow);
    await new Promise((r) => setImmediate(r));
    expect(held).toEqual([call]);
    expect(forwarded).toEqual([]);
    // The listing refused echo meanwhile: judged again, the call is refused for it.
    const check = listing([], [{ name: "echo", verdict: "drift" }]);
    auditor.listingCheck(check, "proxy");
    admission.adoptListing(check);
    setBusy(false);
    calls.decide(call, "echo");
    expect(asked).toHaveLength(1);
    expect(text(answered[0]!)).toMatch(/\(drift\)/);
  });

  it("does not forward a call cancelled or drained while its answer is on the way", async () => {
    const { gate, asked } = manualGate();
    const { calls, admission, forwarded, answered } = setup({ gate });
    admission.adoptListing(listing(["echo"]));
    calls.decide(heldCall(1, "echo"), "echo");
    calls.decide(heldCall(2, "echo"), "echo");
    expect(calls.cancel(1)?.request.id).toBe(1);
    expect(calls.cancel(1)).toBeUndefined();
    expect(calls.drain().map((c) => c.request.id)).toEqual([2]);
    for (const q of asked) q.answer(allow);
    await new Promise((r) => setImmediate(r));
    expect(forwarded).toEqual([]);
    expect(answered).toEqual([]);
  });

  it("in observe mode forwards every call, logging and auditing what would have refused it", async () => {
    const { gate, asked } = manualGate();
    const { calls, admission, forwarded, answered, records, logs } = setup({ gate, observe: true });
    admission.adoptListing(listing(["send"]));
    calls.decide(heldCall(1, "ghost"), "ghost");
    calls.decide(heldCall(2, "send"), "send");
    asked[0]!.answer(deny);
    await new Promise((r) => setImmediate(r));
    expect(forwarded).toEqual([1, 2]);
    expect(answered).toEqual([]);
    expect(logs).toEqual([
      expect.stringMatching(/^observe: would block tools\/call "ghost" \(not_listed\)/),
      expect.stringMatching(/^observe: would block tools\/call "send" \(TOOL_NOT_AUTHORIZED\)/),
    ]);
    for (const record of records)
      expect(record).toMatchObject({ observe: true, allowed: false, enforced: false });
  });
});
