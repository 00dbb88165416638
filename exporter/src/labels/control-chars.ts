// Characters that must never reach a label value or an admin's terminal: the C0 and C1 control
// characters and DEL (a terminal acts on ESC and CSI: OSC 52 writes the clipboard, OSC 0 sets the
// window title, CSI 2J clears the screen; U+009B is a CSI by itself to many terminals), and the
// bidirectional formatting characters, which reorder what is shown around them.
// One definition for the exporter's labels (bounded-label.ts, the Lustre job ids) and `jobio top`.

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function hasControlChars(text: string): boolean {
  return CONTROL.test(text);
}

/** `text` with every such character replaced by `?`. */
export function withoutControlChars(text: string): string {
  return text.replace(CONTROL_ALL, '?');
}

/** Text for a terminal, line by line: the same characters replaced, the newlines kept. */
export function terminalText(text: string): string {
  return text.split('\n').map(withoutControlChars).join('\n');
}
