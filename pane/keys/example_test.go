package keys_test

import (
	"fmt"

	"github.com/melmux/melmux/pane/keys"
)

func ExampleEncode() {
	fmt.Printf("%q\n", keys.Encode("ls -l\n", keys.Modes{}))
	fmt.Printf("%q\n", keys.Encode("<C-c><Up><Enter>", keys.Modes{AppCursor: true}))
	fmt.Printf("%q\n", keys.Encode("for i in 1 2\ndo echo $i; done<Enter>", keys.Modes{BracketedPaste: true}))
	// Output:
	// "ls -l\r"
	// "\x03\x1bOA\r"
	// "\x1b[200~for i in 1 2\rdo echo $i; done\x1b[201~\r"
}
