export { preprocessOverlay, type AnchorMismatch } from "./preprocess.js";
