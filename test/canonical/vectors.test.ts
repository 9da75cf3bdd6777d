import { describe, expect, it } from "vitest";
import { canonicalDigest, definitionSha256 } from "../../src/canonical/index.js";

const sendReport = {
  name: "send_report",
  description: "Email the weekly report to a colleague.",
  inputSchema: {
    type: "object",
    properties: { recipient: { type: "string" } },
    required: ["recipient"],
    additionalProperties: false,
  },
};

describe("pin version 1 reference vectors (DESIGN)", () => {
  it.each([
    [sendReport, "f911b6070f99f881373bc0531b306443b82c504f65074562672b1fdb698e679b"],
    [
      { name: "t", description: "d", inputSchema: { a: 1, b: 2 } },
      "9047428cdcd58f659c87144125ee94aa7bb70371216496f4618631259b3d9691",
    ],
    [
      { inputSchema: { b: 2, a: 1 }, description: "d", name: "t" },
      "9047428cdcd58f659c87144125ee94aa7bb70371216496f4618631259b3d9691",
    ],
    [{ name: "t" }, "afe2e54147e03057da5251ab3f60c3dae2e3e0b4fd86a48b3728b3b3ecb9eab9"],
    [
      { name: "t", inputSchema: {} },
      "4c75e68be5c0aab682bfb2db17bbc97db9e1a0767cc1ddee311ebcb5c5f558d9",
    ],
    [
      { name: "t", description: "" },
      "8d3adac5e92d01c80882aa1ed6af5073242ade1a3eee5bfb2db9d1ad219907fa",
    ],
    [
      { name: "t", description: "café — 😀" },
      "c0a490342fd44fdd68f649401004ca2fc0796b14fe1d1e3254d5e19ed52c833f",
    ],
    [
      { name: "t", inputSchema: { maximum: 1.5, minimum: 0.5 } },
      "6e2c5611a2f225b75c860c83f71e38c1d82445e98018a182e9f7f831248571c2",
    ],
  ])("%j", (definition, digest) => {
    expect(canonicalDigest(definition, { pinVersion: 1 })).toBe(digest);
  });

  it("ignores annotations, outputSchema and bookkeeping fields", () => {
    const noisy = {
      ...sendReport,
      annotations: { destructiveHint: true },
      outputSchema: { type: "object" },
      title: "Send",
      _meta: { x: 1 },
      icons: [{ src: "a.png" }],
      execution: { taskSupport: "optional" },
    };
    expect(canonicalDigest(noisy, { pinVersion: 1 })).toBe(
      "f911b6070f99f881373bc0531b306443b82c504f65074562672b1fdb698e679b",
    );
  });
});

describe("pin version 2 reference vectors (DESIGN)", () => {
  const plain = "97d14495edeb57542c5aec6fc66b955f267e8575122c40ab9a53efef88f22107";

  it("is the default", () => {
    expect(canonicalDigest({ name: "t" })).toBe(
      "7f2f13e8e9bfbeda236f9795242b44adb96e507e5bb842edbec41944f9eb8c94",
    );
    expect(canonicalDigest({ name: "t" }, { pinVersion: 2 })).toBe(canonicalDigest({ name: "t" }));
  });

  it.each([
    ["no annotations", {}],
    ["annotations: {}", { annotations: {} }],
    ["annotations: null, outputSchema: {}", { annotations: null, outputSchema: {} }],
    ["annotations: {destructiveHint: null}", { annotations: { destructiveHint: null } }],
  ])("%s reads as absent", (_label, extra) => {
    expect(canonicalDigest({ ...sendReport, ...extra })).toBe(plain);
  });

  it("pins annotations", () => {
    expect(canonicalDigest({ ...sendReport, annotations: { readOnlyHint: true } })).toBe(
      "7168ced6a663ad9304fe25f2bdcdf4434158637635ba821bd8cac28e88ca9a7b",
    );
  });

  it("drops null members at any depth of annotations and outputSchema", () => {
    const definition = {
      ...sendReport,
      annotations: { readOnlyHint: true, title: null },
      outputSchema: { type: "object", properties: { id: { type: "string", default: null } } },
    };
    expect(canonicalDigest(definition)).toBe(
      "c2223658b3557f00b1603f0e866e040f76082847ee463f3c563b28c7e4a42ffe",
    );
  });

  it("compares description and inputSchema exactly: nested null, empty string, array order", () => {
    const base = canonicalDigest(sendReport);
    expect(canonicalDigest({ ...sendReport, description: "" })).not.toBe(
      canonicalDigest({ ...sendReport, description: undefined }),
    );
    expect(
      canonicalDigest({ ...sendReport, inputSchema: { ...sendReport.inputSchema, default: null } }),
    ).not.toBe(base);
    const reordered = { ...sendReport.inputSchema, required: ["recipient", "x"] };
    const swapped = { ...sendReport.inputSchema, required: ["x", "recipient"] };
    expect(canonicalDigest({ ...sendReport, inputSchema: reordered })).not.toBe(
      canonicalDigest({ ...sendReport, inputSchema: swapped }),
    );
  });

  it("keeps null array elements and nested {} in annotations and outputSchema", () => {
    const a = canonicalDigest({ name: "t", outputSchema: { enum: [null, "a"] } });
    const b = canonicalDigest({ name: "t", outputSchema: { enum: ["a"] } });
    expect(a).not.toBe(b);
    const nestedEmpty = canonicalDigest({ name: "t", outputSchema: { properties: {} } });
    expect(nestedEmpty).not.toBe(canonicalDigest({ name: "t" }));
  });

  it("refuses a nameless definition and an unknown pin version", () => {
    expect(() => canonicalDigest({ description: "x" })).toThrow(
      expect.objectContaining({ code: "INVALID_TOOL_DEFINITION" }),
    );
    expect(() => canonicalDigest({ name: "" })).toThrow(
      expect.objectContaining({ code: "INVALID_TOOL_DEFINITION" }),
    );
    expect(() => canonicalDigest({ name: 7 })).toThrow(
      expect.objectContaining({ code: "INVALID_TOOL_DEFINITION" }),
    );
    expect(() => canonicalDigest({ name: "t" }, { pinVersion: 3 as 2 })).toThrow(
      expect.objectContaining({ code: "INVALID_TOOL_DEFINITION" }),
    );
  });
});

describe("definitionSha256 (RFC 8785) reference vector (DESIGN)", () => {
  it("matches the weather_forecast vector", () => {
    expect(
      definitionSha256({
        name: "weather_forecast",
        description: "Get the forecast for a city",
        inputSchema: {
          type: "object",
          properties: {
            city: { type: "string" },
            days: { type: "integer", minimum: 1, maximum: 7 },
          },
          required: ["city"],
        },
      }),
    ).toBe("f1e16554bd1d858284d91bd127714276451d7d1d4af02aaea40eea8090c796f9");
  });

  it("covers every field of the definition as served, and drops undefined members", () => {
    const d = { name: "t", description: "d" };
    expect(definitionSha256({ ...d, title: "T" })).not.toBe(definitionSha256(d));
    expect(definitionSha256({ ...d, title: undefined })).toBe(definitionSha256(d));
  });
});
