/**
 * The shape of a signal declaration: its stable id, why it matters, the concept rules
 * that raise it, and examples it must fire on and stay quiet on (docs and tests read
 * the examples, so every signal is documented by cases that run).
 */
import type { ConceptRule, TextKind } from "../engine/judge.js";
import type { InjectionSignal } from "../types.js";

/** An example text: a tool description, or a text of another kind. */
export type SignalCase = string | { readonly text: string; readonly kind: TextKind };

/** One signal. */
export interface SignalDeclaration {
  readonly id: InjectionSignal;
  /** Why a finding of this signal is poisoning, in one sentence (the finding adds what met). */
  readonly why: string;
  readonly rules: readonly ConceptRule[];
  /** Texts (tool descriptions unless a site is named) the signal must fire on. */
  readonly fires: readonly SignalCase[];
  /** Texts it must stay quiet on. */
  readonly quiet: readonly SignalCase[];
}
