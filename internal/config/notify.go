package config

import "fmt"

// resolveNotifications fills NotifyWhen and NotifyMethod from
// [notifications], refusing values it does not know.
func (c *Config) resolveNotifications() error {
	c.NotifyWhen, c.NotifyMethod = "auto", "bel"
	n := c.File.Notifications
	if n == nil {
		return nil
	}
	switch n.When {
	case "":
	case "off", "auto", "always":
		c.NotifyWhen = n.When
	default:
		return fmt.Errorf("config: %s: [notifications] when = %q: use off, auto or always", c.Path, n.When)
	}
	switch n.Method {
	case "":
	case "bel", "osc9", "osc777":
		c.NotifyMethod = n.Method
	default:
		return fmt.Errorf("config: %s: [notifications] method = %q: use bel, osc9 or osc777", c.Path, n.Method)
	}
	return nil
}
