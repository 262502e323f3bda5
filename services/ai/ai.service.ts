import type { ServiceSchema } from "moleculer";

/** Owns its part of the contract; its operations are added to this schema as they are built. */
const AiService: ServiceSchema = {
	name: "ai"
};

export default AiService;
