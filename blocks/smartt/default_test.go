package smartt_test

import (
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/smartt"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

// The papers' setting through the configuration is the golden models'
// own default, so `nicgen scenario` prints what it printed before
// configurations existed.
func TestDefaultConfigIsGoldenDefault(t *testing.T) {
	t.Parallel()
	cfg := blocks.DefaultConfig()
	for _, c := range []struct {
		v    smartt.Variant
		want gsmartt.Params
	}{{smartt.Conf, gsmartt.DefaultParams(gsmartt.Conf)}, {smartt.NSCC, gsmartt.DefaultParams(gsmartt.NSCC)}} {
		got := smartt.MustOf(cfg, c.v).Golden()
		got.Depth = 0 // the shell's depth is the blocks' (golden/pipe), not the papers'
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("golden params of the default configuration, %v:\n%+v\nwant\n%+v", c.v, got, c.want)
		}
	}
}
