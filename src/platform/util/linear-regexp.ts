/**
 * Regular expressions from users (JSON Schema `pattern` and `patternProperties`) run on RE2's
 * automaton (re2js, a pure-JavaScript port of RE2/J): matching takes time linear in the input, so no
 * pattern can hold the event loop the way a backtracking `^(a+)+$` does. Patterns RE2 cannot run in
 * linear time — backreferences, lookaround — are refused when the schema is compiled.
 *
 * `linearRegExp` is an ajv `code.regExp` engine.
 */
import { RE2JS } from 're2js';

/** What ajv needs of a regular expression. */
export interface LinearRegExp {
  test(text: string): boolean;
  /** ajv keys its cache of compiled patterns by this text. */
  toString(): string;
}

/** Compiles `pattern` (JavaScript syntax) to a linear-time matcher; throws on what RE2 cannot run. */
export function linearRegExp(pattern: string, flags = ''): LinearRegExp {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    throw new Error(
      `pattern ${JSON.stringify(pattern)} is not supported (r3 runs patterns in linear time: no backreferences or lookaround): ${(error as Error).message}`,
    );
  }
  return {
    test: (text) => compiled.test(text),
    toString: () => `/${pattern}/${flags}`,
  };
}
/** How ajv names the engine in generated code. */
linearRegExp.code = 'linearRegExp';
