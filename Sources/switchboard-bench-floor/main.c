// switchboard-bench-floor: the floor the MQTT benchmark measures Switchboard against. A minimal
// libmosquitto client that answers each command at once: a message on <prefix>/<id>/set is
// answered by publishing <prefix>/<id> (QoS 1, retained, as Switchboard publishes presentations)
// with a payload of the size of a Switchboard presentation. The cost of the broker path itself.
//
//   switchboard-bench-floor PORT PREFIX
#include <mosquitto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char prefix[256];

static void on_connect(struct mosquitto *client, void *context, int result) {
    (void)context;
    if (result != 0) {
        fprintf(stderr, "switchboard-bench-floor: connection refused (%d)\n", result);
        exit(1);
    }
    char filter[300];
    snprintf(filter, sizeof filter, "%s/+/set", prefix);
    mosquitto_subscribe(client, NULL, filter, 1);
    printf("ready\n");
    fflush(stdout);
}

static void on_message(struct mosquitto *client, void *context, const struct mosquitto_message *message) {
    (void)context;
    size_t length = strlen(message->topic);
    if (length < 4 || strcmp(message->topic + length - 4, "/set") != 0) return;
    char topic[512];
    if (length - 4 >= sizeof topic) return;
    memcpy(topic, message->topic, length - 4);
    topic[length - 4] = 0;
    const char *command = message->payload;
    int on = message->payloadlen >= 2 && command[0] == 'O' && command[1] == 'N';
    char payload[512];
    int size = snprintf(payload, sizeof payload,
        "{\"actionHint\":\"Hold to Turn %s\",\"displayName\":\"Bench\",\"id\":\"%s\",\"kind\":\"bench\","
        "\"needsConfiguration\":false,\"redacted\":false,\"size\":null,\"space\":\"controlCenter\",\"stale\":false,"
        "\"status\":null,\"symbol\":\"lightbulb\",\"template\":\"toggle\",\"tint\":null,\"title\":\"Bench\","
        "\"value\":%s,\"valueText\":\"%s\"}",
        on ? "Off" : "On", topic + strlen(prefix) + 1, on ? "true" : "false", on ? "On" : "Off");
    mosquitto_publish(client, NULL, topic, size, payload, 1, true);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: switchboard-bench-floor PORT PREFIX\n");
        return 2;
    }
    snprintf(prefix, sizeof prefix, "%s", argv[2]);
    mosquitto_lib_init();
    struct mosquitto *client = mosquitto_new("switchboard-bench-floor", true, NULL);
    if (client == NULL) return 1;
    mosquitto_int_option(client, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_connect_callback_set(client, on_connect);
    mosquitto_message_callback_set(client, on_message);
    if (mosquitto_connect(client, "127.0.0.1", atoi(argv[1]), 60) != MOSQ_ERR_SUCCESS) {
        fprintf(stderr, "switchboard-bench-floor: cannot connect to 127.0.0.1:%s\n", argv[1]);
        return 1;
    }
    int result = mosquitto_loop_forever(client, -1, 1);
    mosquitto_destroy(client);
    mosquitto_lib_cleanup();
    return result == MOSQ_ERR_SUCCESS ? 0 : 1;
}
