// Colour-vision-deficiency simulation for the status colours: Machado, Oliveira & Fernandes (2009), "A
// physiologically-based model for simulation of color vision deficiency", IEEE TVCG 15(6), severity 1.0
// matrices, applied to linear RGB; difference as CIE76 ΔE in CIELAB (D65).

/** Severity 1.0 matrices of Machado et al. 2009 (rows act on linear R, G, B). */
export const MACHADO_2009 = {
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
};

const toLinear = (c) => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
};
const toSrgb = (v) => {
  const c = Math.min(1, Math.max(0, v));
  return 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
};

/** [r, g, b] 0–255 from "#rrggbb" or "rgb(r, g, b)". */
export function parseColour(text) {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(text.trim());
  if (hex) {
    return hex.slice(1).map((h) => parseInt(h, 16));
  }
  const rgb = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(text.trim());
  if (rgb) {
    return rgb.slice(1).map(Number);
  }
  throw new Error(`not a colour: ${text}`);
}

export function simulate(rgb, matrix) {
  const lin = rgb.map(toLinear);
  return matrix.map((row) => toSrgb(row[0] * lin[0] + row[1] * lin[1] + row[2] * lin[2]));
}

function lab(rgb) {
  const [r, g, b] = rgb.map(toLinear);
  const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 / 116) * t + 16 / 116);
  const x = f((0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047);
  const y = f(0.2126729 * r + 0.7151522 * g + 0.072175 * b);
  const z = f((0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}

/** CIE76 colour difference (about 2.3 is just noticeable; over 20 reads as clearly different). */
export function deltaE(a, b) {
  const p = lab(a);
  const q = lab(b);
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

/** The smallest difference between any two of `colours` as seen with `deficiency`, and which pair. */
export function closestPair(colours, deficiency) {
  const names = Object.keys(colours);
  const seen = Object.fromEntries(names.map((n) => [n, simulate(colours[n], MACHADO_2009[deficiency])]));
  let best = { delta: Infinity, pair: [] };
  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      const delta = deltaE(seen[names[i]], seen[names[j]]);
      if (delta < best.delta) {
        best = { delta, pair: [names[i], names[j]] };
      }
    }
  }
  return best;
}
