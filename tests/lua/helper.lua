-- The specs of the repository use the policy kit from its source tree.
package.path = "lua/kit/?.lua;" .. package.path
return require("moonsched.kit")
