/**
 * Every phrase rule's pattern, for the tests that hold a property of each one (linear
 * time, lower case, sound gating): one list, so a new rule family is not missed by one.
 */
import { COMMAND_RULES } from "../../../src/scan/poisoning/commands.js";
import { CONCEALMENT_RULES } from "../../../src/scan/poisoning/concealment.js";
import {
  EXFILTRATION_RULES,
  SCHEMA_SIDE_CHANNEL_RULES,
  SIDE_CHANNEL_RULES,
} from "../../../src/scan/poisoning/exfiltration.js";
import { MANIPULATION_RULES } from "../../../src/scan/poisoning/manipulation.js";
import { OVERRIDE_RULES } from "../../../src/scan/poisoning/override.js";
import { TAMPERING_RULES } from "../../../src/scan/poisoning/shadowing.js";
import { SIDE_EFFECT_RULES } from "../../../src/scan/poisoning/side-effects.js";

/** The pattern of every phrase rule, family by family. */
export const RULE_PATTERNS: readonly RegExp[] = [
  ...COMMAND_RULES,
  ...CONCEALMENT_RULES,
  ...EXFILTRATION_RULES,
  ...SIDE_CHANNEL_RULES,
  ...SCHEMA_SIDE_CHANNEL_RULES,
  ...MANIPULATION_RULES,
  ...OVERRIDE_RULES,
  ...TAMPERING_RULES,
  ...SIDE_EFFECT_RULES,
].map((rule) => rule.pattern);
