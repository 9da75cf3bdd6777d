export { AirlockError } from "./errors.js";
