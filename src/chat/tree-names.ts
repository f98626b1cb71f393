/**
 * Names of the result-tree nodes a chat parser produces and the mapper reads. The parser
 * generators and the dedicated handlers use only these, so one mapper serves every format.
 */
export const NODE = {
  /** Capture: reasoning text. */
  reasoning: "reasoning",
  /** Tag: a whole reasoning block, its markers included (content under reasoningFormat "none"). */
  reasoningBlock: "reasoning-block",
  /** Capture: visible answer text. */
  content: "content",
  /** Tag: everything that belongs to one tool call. */
  tool: "tool",
  /**
   * Tag: the marker that closes one call, in formats whose calls have one: a call the parse ends
   * without it was not finished by the model (`ChatMappingOptions.callEndRequired`).
   */
  callEnd: "call-end",
  /** Tag: a whole tool-call section (its end is where recovered trailing text starts). */
  toolSection: "tool-section",
  /** Capture: the function name (complete when present: always inside an atomic). */
  toolName: "tool-name",
  /** Capture: a call id written by the model. */
  toolId: "tool-id",
  /** Capture: the arguments object as JSON or Python-literal text. */
  toolArgs: "tool-args",
  /** Tag: one tagged argument (name + value). */
  toolArg: "tool-arg",
  /** Capture: a tagged argument's name. */
  argName: "arg-name",
  /** Capture: a tagged argument's raw string value (unquoted). */
  argString: "arg-string",
  /**
   * Capture: the inside of a quoted Python string value (PYTHONIC keyword arguments), without
   * its quotes: escapes are decoded, a quote that is not escaped is text.
   */
  argPyString: "arg-py-string",
  /** Capture: a tagged argument's JSON / Python-literal value. */
  argJson: "arg-json",
  /** Tag: a tagged argument's value written as nested tagged members (an object; members are `tool-arg` tags). */
  argObject: "arg-object",
  /** Tag: a tagged argument's value written as a list of items (an array). */
  argArray: "arg-array",
  /** Tag: one item of an `arg-array`, holding its value. */
  argItem: "arg-item",
  /** Tag: calls read without their format's markers (`[{"name": …}]`): JSON in them must write its arguments. */
  unmarkedCalls: "unmarked-calls",
} as const;
