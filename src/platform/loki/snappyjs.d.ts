/** Types for the snappyjs package (block-format snappy in plain JavaScript; it ships none). */
declare module "snappyjs" {
  const snappy: {
    compress<T extends Uint8Array | ArrayBuffer>(input: T): T;
    uncompress<T extends Uint8Array | ArrayBuffer>(input: T, maxLength?: number): T;
  };
  export default snappy;
}
