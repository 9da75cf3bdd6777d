export {
  type CanonicalDigestOptions,
  canonicalDigest,
  PINNED_FIELDS,
} from "./digest.js";
export { definitionSha256, jcsCanonicalize } from "./jcs.js";
export { pythonCanonicalJson } from "./python-json.js";
export type { CanonicalLimits } from "./serialize.js";
