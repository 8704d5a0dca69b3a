/**
 * @hermes-mcp/protocol/internal — what the other Hermes packages build on and applications do not:
 * no stability promise beyond the packages of this repository, which move together.
 */
export { SparseMap } from './sparse-map';
