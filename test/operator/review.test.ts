import { describe, expect, it } from "vitest";
import { canonicalDigest } from "../../src/canonical/digest.js";
import { plainPalette, renderToolReview, reviewListing } from "../../src/cli/review.js";
import { ToolDefinitionPinGuard } from "../../src/pins/guard.js";

const approved = {
  name: "send",
  description: "Send a mail.",
  inputSchema: { type: "object" },
  annotations: { readOnlyHint: false },
};

describe("reviewListing (what pin and check show)", () => {
  it("gives a drift its diff against the approved definition", () => {
    const guard = new ToolDefinitionPinGuard();
    guard.approve(approved);
    const review = reviewListing(guard, [
      { ...approved, description: "Send a mail to everyone." },
      { name: "new_tool" },
    ]);
    expect(review.clean).toBe(false);
    expect(review.tools.map((t) => t.status)).toEqual(["drift", "unpinned"]);
    expect(review.tools[0]!.diff?.fields.map((f) => f.field)).toEqual(["description"]);
    const text = renderToolReview(review.tools[0]!, plainPalette).join("\n");
    expect(text).toContain("DRIFT      send");
    expect(text).toContain("Send a mail{+ to everyone+}.");
  });

  it("says the fields cannot be shown when the pin holds only a digest", () => {
    const guard = new ToolDefinitionPinGuard();
    guard.pin("send", canonicalDigest(approved, { pinVersion: 2 }), { pinVersion: 2 });
    const review = reviewListing(guard, [{ ...approved, description: "changed" }]);
    expect(review.tools[0]!.diff).toBeNull();
    expect(renderToolReview(review.tools[0]!, plainPalette).join("\n")).toContain(
      "the pin file stores only the digest",
    );
  });

  it("limits the diff of a version 1 pin to the fields it covers", () => {
    const guard = new ToolDefinitionPinGuard();
    guard.pin("send", canonicalDigest(approved, { pinVersion: 1 }), {
      pinVersion: 1,
      definition: approved,
    });
    const review = reviewListing(guard, [
      { ...approved, description: "changed", annotations: { readOnlyHint: true } },
    ]);
    expect(review.tools[0]!.status).toBe("drift");
    expect(review.tools[0]!.diff?.fields.map((f) => f.field)).toEqual(["description"]);
  });

  it("lists pinned tools the listing leaves out as missing, which refuse nothing", () => {
    const guard = new ToolDefinitionPinGuard();
    guard.approve(approved);
    guard.approve({ name: "gone" });
    const review = reviewListing(guard, [approved]);
    expect(review.clean).toBe(true);
    expect(review.missing).toEqual(["gone"]);
  });
});

describe("reviewListing on N drifted tools: linear work", () => {
  it("reads the guard's pin record once, not once per drifted tool", () => {
    let built = 0;
    // `pins` builds a record of every pin: the work it costs is the number of pins.
    class CountingGuard extends ToolDefinitionPinGuard {
      override get pins() {
        const pins = super.pins;
        built += Object.keys(pins).length;
        return pins;
      }
    }
    const measure = (n: number) => {
      const guard = new CountingGuard();
      const tools = Array.from({ length: n }, (_, i) => ({ ...approved, name: `send_${i}` }));
      for (const tool of tools) guard.approve(tool);
      built = 0;
      const review = reviewListing(
        guard,
        tools.map((tool) => ({ ...tool, description: "Send a mail to everyone." })),
      );
      expect(review.tools.every((t) => t.status === "drift" && t.diff !== null)).toBe(true);
      return built;
    };
    const small = measure(50);
    expect(measure(200)).toBeLessThanOrEqual(4 * small);
  });
});
