/**
 * Python's `repr(float)` for a finite, non-integral double: the shortest round-trip
 * digits (the same digits ECMAScript picks), written in fixed notation when the decimal
 * exponent is in [-4, 16) and as `d.ddde±XX` otherwise (`1.5e-07`, `1e-05`, `0.0001`).
 */
export function pythonFloatRepr(value: number): string {
  // toExponential() with no argument gives the shortest round-trip digits.
  const text = value.toExponential();
  const negative = text.startsWith("-");
  const body = negative ? text.slice(1) : text;
  const ePos = body.indexOf("e");
  const mantissa = body.slice(0, ePos);
  const exponent = Number(body.slice(ePos + 1));
  const digits = mantissa.replace(".", "");
  let result: string;
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      result = `0.${"0".repeat(-exponent - 1)}${digits}`;
    } else if (digits.length > exponent + 1) {
      result = `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
    } else {
      result = `${digits}${"0".repeat(exponent + 1 - digits.length)}.0`;
    }
  } else {
    const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const sign = exponent < 0 ? "-" : "+";
    result = `${head}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return negative ? `-${result}` : result;
}
