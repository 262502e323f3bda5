/** Jest runs the TypeScript sources as native ES modules (jose and cel-js are ESM only). */
export default {
	testEnvironment: "node",
	extensionsToTreatAsEsm: [".ts"],
	transform: {
		"^.+\\.ts$": [
			"@swc/jest",
			{
				jsc: { parser: { syntax: "typescript" }, target: "es2023" },
				module: { type: "es6" }
			}
		]
	},
	moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
	testMatch: ["<rootDir>/test/**/*.test.ts"],
	setupFilesAfterEnv: ["<rootDir>/test/support/fresh-connections.ts"],
	testTimeout: 30000
};
