/**
 * How `airlock proxy` decides one `tools/call` once the admitted set is known: the pins
 * first (the tool must be admitted by the latest listing; otherwise the verdict that
 * refused it is named), then, when a delegation gate is set, the agent's delegation.
 * A drifted or unpinned tool never reaches the verifier. Each call is one audit line
 * with its verdict and reason, and a refusal one diagnostics line.
 *
 * The delegation answer is asynchronous: the call waits here meanwhile. If a listing
 * started while it waited, the call goes back to the proxy's held calls and is judged
 * again against the new listing (the guard's ALLOW cache makes the second question
 * cheap); a call cancelled or a proxy stopped meanwhile is not forwarded.
 *
 * In observe mode every call is forwarded, and what would have refused it is logged.
 */
import { quoteName } from "../mcp/refusal.js";
import type { ToolAdmission } from "./admission.js";
import type { ProxyAuditor } from "./auditor.js";
import type { DelegationAnswer, DelegationGate } from "./delegation-gate.js";
import type { JsonRpcId, JsonRpcMessage } from "./json-rpc.js";
import { blockedCallAnswer } from "./proxy-answers.js";
import type { HeldCall } from "./types.js";

/** What {@link CallDecisions} works with: the running proxy's parts. */
export interface CallDecisionsContext {
  admission: ToolAdmission;
  auditor: ProxyAuditor;
  gate: DelegationGate | undefined;
  observe: boolean;
  log(line: string): void;
  /** Send the call on to the server. */
  forward(call: HeldCall): void;
  /** Answer the call in the server's place (it is not forwarded). */
  answer(call: HeldCall, message: JsonRpcMessage): void;
  /** Hold the call again until the running listing is done. */
  hold(call: HeldCall): void;
  /** True while the proxy's own listing runs. */
  listingBusy(): boolean;
}

/** The pins' side of a call: admitted, or the verdict that refuses it. */
interface PinSide {
  allowed: boolean;
  verdict: string;
  reason: string;
}

/**
 * The call decisions of one proxy session.
 *
 * @example
 * ```ts
 * import { CallDecisions } from "./call-decisions.js";
 * const calls = new CallDecisions(context); // context: the proxy's parts
 * calls.decide(heldCall, "echo"); // forwarded, answered with AIRLOCK_BLOCK, or waiting for the gate
 * ```
 */
export class CallDecisions {
  private readonly context: CallDecisionsContext;
  /** Calls the pins admitted that wait for the delegation answer. */
  private readonly waiting = new Set<HeldCall>();

  constructor(context: CallDecisionsContext) {
    this.context = context;
  }

  /** Decide a held call, the admitted set being known and no listing running. */
  decide(call: HeldCall, toolName: string | null): void {
    const pins = this.pinSide(toolName);
    const { gate } = this.context;
    if (!pins.allowed || gate === undefined || toolName === null) {
      this.conclude(call, toolName, pins.allowed, pins.verdict, pins.reason, {});
      return;
    }
    this.waiting.add(call);
    gate
      .check(toolName)
      .then((answer) => this.afterGate(call, toolName, answer))
      .catch((error: unknown) => this.context.log(`delegation check failed: ${String(error)}`));
  }

  /** A cancelled call that waits for its delegation answer: it will not be forwarded. */
  cancel(id: unknown): HeldCall | undefined {
    for (const call of this.waiting) {
      if (call.request.id === id) {
        this.waiting.delete(call);
        return call;
      }
    }
    return undefined;
  }

  /** Every call still waiting (the proxy is stopping): none will be forwarded. */
  drain(): HeldCall[] {
    const calls = [...this.waiting];
    this.waiting.clear();
    return calls;
  }

  private afterGate(call: HeldCall, toolName: string, answer: DelegationAnswer): void {
    if (!this.waiting.delete(call)) return;
    if (this.context.listingBusy()) {
      this.context.hold(call);
      return;
    }
    const pins = this.pinSide(toolName);
    const delegation = {
      capability: answer.capability,
      delegation: answer.allowed ? "ALLOW" : answer.code,
      ...(answer.allowed && { root: answer.root, cached: answer.cached }),
    };
    if (!pins.allowed) {
      // A listing while the verifier answered refused the tool after all.
      this.conclude(call, toolName, false, pins.verdict, pins.reason, {});
    } else if (answer.allowed) {
      this.conclude(call, toolName, true, pins.verdict, answer.reason, delegation);
    } else {
      this.conclude(call, toolName, false, answer.code, answer.reason, delegation);
    }
  }

  private pinSide(toolName: string | null): PinSide {
    const { admission, auditor } = this.context;
    if (toolName === null) {
      return { allowed: false, verdict: "no_name", reason: "the call names no tool" };
    }
    if (admission.allows(toolName)) {
      return { allowed: true, verdict: "allow_pinned", reason: "admitted by the pins" };
    }
    const refusal = auditor.verdicts.refusalOf(toolName);
    if (refusal !== undefined) return { allowed: false, ...refusal };
    if (admission.isClosed(toolName)) {
      return {
        allowed: false,
        verdict: "closed",
        reason: "a listing refused it earlier in the session",
      };
    }
    const failure = auditor.verdicts.lastListingFailure;
    if (failure !== null) {
      return {
        allowed: false,
        verdict: "listing_failed",
        reason: `the proxy's listing of the server failed, so no tool is admitted: ${failure}`,
      };
    }
    return { allowed: false, verdict: "not_listed", reason: "the server does not list it" };
  }

  private conclude(
    call: HeldCall,
    toolName: string | null,
    allowed: boolean,
    verdict: string,
    reason: string,
    delegation: Record<string, unknown>,
  ): void {
    const { auditor, observe } = this.context;
    auditor.record({
      event: "tool_call_check",
      toolName,
      allowed,
      verdict,
      reason,
      ...delegation,
      ...(!allowed && { enforced: !observe }),
    });
    if (allowed) {
      this.context.forward(call);
      return;
    }
    const shown = toolName === null ? "without a name" : quoteName(toolName);
    if (observe) {
      this.context.log(
        `observe: would block tools/call ${shown} (${verdict}): ${reason}; forwarded`,
      );
      this.context.forward(call);
      return;
    }
    this.context.log(`blocked tools/call ${shown} (${verdict}): ${reason}`);
    this.context.answer(
      call,
      blockedCallAnswer(call.request.id as JsonRpcId, toolName, verdict, reason),
    );
  }
}
