// The runner's comparison rules, for promptfoo: equality, {min, max} bounds for
// numbers, lists compared as sets. Every wrong field is named in the reason.
function matches(expected, got) {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (typeof got !== 'number') return false;
    return (expected.min === undefined || got >= expected.min) &&
           (expected.max === undefined || got <= expected.max);
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(got)) return false;
    const want = new Set(expected.map(String));
    const have = new Set(got.map(String));
    return want.size === have.size && [...want].every((item) => have.has(item));
  }
  if (typeof expected === 'number' && typeof got === 'number') {
    return Math.abs(expected - got) < 1e-9;
  }
  return expected === got;
}

module.exports = (output, context) => {
  let got;
  try {
    got = JSON.parse(output);
  } catch (err) {
    return { pass: false, score: 0, reason: `provider output is not JSON: ${output}` };
  }
  const expected = context.vars.expect || {};
  // A provider that decides only some fields (the LLM judge) names them.
  const judged = Array.isArray(got._judged_fields) ? got._judged_fields : Object.keys(expected);
  const keys = Object.keys(expected).filter((key) => judged.includes(key));
  if (keys.length === 0) return { pass: true, score: 1, reason: 'no field this provider decides' };
  const wrong = keys.filter((key) => !matches(expected[key], got[key]));
  if (wrong.length === 0) return { pass: true, score: 1, reason: 'all expected fields match' };
  const reason = wrong
    .map((key) => `${key}: expected ${JSON.stringify(expected[key])}, got ${JSON.stringify(got[key])}`)
    .join('; ');
  return { pass: false, score: 0, reason };
};
