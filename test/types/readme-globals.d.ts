// Names the README's snippets use without defining them (a snippet's own definition shadows these).
declare const model: import("toolwright").ChatModel;
declare const messages: import("toolwright").ChatMessage[];
declare const user: import("toolwright").UserMessage;
declare const tools: import("toolwright").ChatTool[];
declare const longHistory: import("toolwright").ChatMessage[];
declare const longDocument: string;
