import { SignJWT } from "jose";
import { Environment } from "@marcbachmann/cel-js";

test("esm only packages load", () => {
	expect(typeof SignJWT).toBe("function");
	expect(typeof Environment).toBe("function");
});
