export { preprocessOverlay, type AnchorMismatch, type Preprocessed } from "./preprocess.js";
