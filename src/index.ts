/**
 * agent-airlock core: canonical digests, tool-definition pins, listing checks and pin
 * files. Importing it never loads the MCP SDK or any agent framework.
 *
 * @packageDocumentation
 */
export {
  type CanonicalDigestOptions,
  type CanonicalLimits,
  canonicalDigest,
  definitionSha256,
  jcsCanonicalize,
  PINNED_FIELDS,
  pythonCanonicalJson,
} from "./canonical/index.js";
export {
  AirlockError,
  CanonicalizationError,
  type CanonicalizationErrorCode,
  InvalidPinError,
  InvalidToolDefinitionError,
  type ListingFault,
  PeerDependencyError,
  type PeerDependencyErrorCode,
  PinFileError,
  type PinFileErrorCode,
  ToolDefinitionDriftError,
  ToolListingDriftError,
} from "./errors.js";
export * from "./pins/index.js";
