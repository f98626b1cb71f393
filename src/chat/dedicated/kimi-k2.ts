/**
 * Kimi K2: the generic analysis reads its section and call markers; what it needs besides is
 * Kimi's call ids in history (`functions.NAME:INDEX`), which some of its templates expect from
 * the caller and write where the function name goes. A history-only handler: no parser of its
 * own (see DedicatedHandlerDef.build).
 */
import { kimiCallIds } from "../../analysis/kimi-call-ids.js";
import type { DedicatedHandlerDef } from "./handler.js";

export const kimiK2: DedicatedHandlerDef = { name: "kimi-k2", adaptMessages: kimiCallIds };
